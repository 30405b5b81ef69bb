import {
  BASE_CHAIN_ID,
  BASE_SEPOLIA_CHAIN_ID,
  type Deployment,
  deploymentFile,
  deploymentsDir,
  ERC8004_ADDRESSES,
  LOCAL_CHAIN_ID,
  readDeployment,
} from "@agent-marketplace/contracts";
import type { Address } from "viem";

/**
 * What the indexer indexes: one chain, its RPC, and the contracts of its deployments file. Read
 * from the environment by ponder.config.ts:
 *
 *   CHAIN_ID             31337 (local Hardhat node, the default), 84532 (Base Sepolia) or 8453 (Base)
 *   RPC_URL              the chain's JSON-RPC endpoint; default http://127.0.0.1:8545 on the local chain
 *   POLLING_INTERVAL_MS  how often to ask for new blocks; default 100 locally, 1000 elsewhere
 *   DEPLOYMENTS_DIR      folder of `<chainId>.json` deployments files (default contracts/deployments)
 */
export interface IndexerTarget {
  chainId: number;
  /** The chain's key in the Ponder config (and in chain._ponder_checkpoint.chain_name). */
  chainName: string;
  rpcUrl: string;
  pollingInterval: number;
  /** A local chain is restarted from scratch at will: never cache its RPC answers. */
  disableCache: boolean;
  contracts: {
    AgentEscrow: ContractTarget;
    IdentityRegistry: ContractTarget;
    ReputationRegistry: ContractTarget;
  };
}

export interface ContractTarget {
  address: Address;
  startBlock: number;
}

/** Ponder's name of each chain the marketplace runs on. */
export const CHAIN_NAMES: Readonly<Record<number, string>> = {
  [LOCAL_CHAIN_ID]: "hardhat",
  [BASE_SEPOLIA_CHAIN_ID]: "baseSepolia",
  [BASE_CHAIN_ID]: "base",
};

export const LOCAL_RPC_URL = "http://127.0.0.1:8545";

type Env = Record<string, string | undefined>;

export function resolveIndexerTarget(env: Env = process.env): IndexerTarget {
  const chainId = env.CHAIN_ID ? Number(env.CHAIN_ID) : LOCAL_CHAIN_ID;
  const chainName = CHAIN_NAMES[chainId];
  if (!chainName) {
    throw new Error(`CHAIN_ID=${env.CHAIN_ID} is not a marketplace chain (${Object.keys(CHAIN_NAMES).join(", ")})`);
  }
  const local = chainId === LOCAL_CHAIN_ID;
  const rpcUrl = env.RPC_URL || (local ? LOCAL_RPC_URL : undefined);
  if (!rpcUrl) throw new Error(`RPC_URL is required to index chain ${chainId}`);

  const pollingInterval = env.POLLING_INTERVAL_MS ? Number(env.POLLING_INTERVAL_MS) : local ? 100 : 1_000;
  if (!Number.isInteger(pollingInterval) || pollingInterval < 100) {
    throw new Error(`POLLING_INTERVAL_MS must be an integer of at least 100, got ${env.POLLING_INTERVAL_MS}`);
  }

  const dir = deploymentsDir(env);
  const deployment = readDeployment(chainId, dir);
  if (!deployment) {
    throw new Error(
      `No deployment for chain ${chainId} at ${deploymentFile(chainId, dir)}: deploy first (pnpm --filter @agent-marketplace/contracts run deploy --network <name>)`,
    );
  }
  return {
    chainId,
    chainName,
    rpcUrl,
    pollingInterval,
    disableCache: local,
    contracts: contractsOf(deployment),
  };
}

/**
 * The escrow from the deployments file; the ERC-8004 registries from it too (local chains deploy
 * their own), else the official ones, indexed from the escrow's start block: the marketplace only
 * needs identities and feedback from its own lifetime.
 */
function contractsOf(deployment: Deployment): IndexerTarget["contracts"] {
  const escrow = deployment.contracts.AgentEscrow;
  const official = ERC8004_ADDRESSES[deployment.chainId];
  const registry = (name: "IdentityRegistry" | "ReputationRegistry"): ContractTarget => {
    const deployed = deployment.contracts[name];
    if (deployed) return { address: deployed.address, startBlock: deployed.startBlock };
    if (!official)
      throw new Error(`Chain ${deployment.chainId} has no ${name} in its deployments file and no official one`);
    const address = name === "IdentityRegistry" ? official.identityRegistry : official.reputationRegistry;
    return { address, startBlock: escrow.startBlock };
  };
  return {
    AgentEscrow: { address: escrow.address, startBlock: escrow.startBlock },
    IdentityRegistry: registry("IdentityRegistry"),
    ReputationRegistry: registry("ReputationRegistry"),
  };
}
