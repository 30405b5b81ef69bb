import { agentEscrowAbi, identityRegistryAbi, reputationRegistryAbi } from "@agent-marketplace/contracts";
import { createConfig } from "ponder";
import { resolveIndexerTarget } from "./lib/target.ts";

/**
 * One chain (CHAIN_ID, RPC_URL; the local Hardhat node by default) and the contracts of its
 * deployments file. Postgres when DATABASE_URL is set, else PGlite in PGLITE_DIRECTORY
 * (default .ponder/pglite).
 */
const target = resolveIndexerTarget();
const chain = target.chainName;

export default createConfig({
  database: process.env.DATABASE_URL
    ? { kind: "postgres", connectionString: process.env.DATABASE_URL }
    : { kind: "pglite", directory: process.env.PGLITE_DIRECTORY || undefined },
  chains: {
    [chain]: {
      id: target.chainId,
      rpc: target.rpcUrl,
      pollingInterval: target.pollingInterval,
      disableCache: target.disableCache,
    },
  },
  contracts: {
    AgentEscrow: { chain, abi: agentEscrowAbi, ...target.contracts.AgentEscrow },
    IdentityRegistry: { chain, abi: identityRegistryAbi, ...target.contracts.IdentityRegistry },
    ReputationRegistry: { chain, abi: reputationRegistryAbi, ...target.contracts.ReputationRegistry },
  },
});
