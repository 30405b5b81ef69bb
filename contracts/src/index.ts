/** Public surface of @agent-marketplace/contracts: ABIs, addresses, deployments, escrow and Circle USDC helpers. */
export * from "./chains.ts";
export * from "./circle-usdc.ts";
export * from "./deployments.ts";
export * from "./escrow.ts";
export * from "./generated/abis.ts";
