/** Public surface of @agent-marketplace/contracts: ABIs, addresses, deployments, escrow helpers. */
export * from "./chains.ts";
export * from "./deployments.ts";
export * from "./escrow.ts";
export * from "./generated/abis.ts";
