import { createPublicClient, http } from "viem";
import type { Config } from "../config.ts";

/**
 * Refuses to serve a node of another chain than CHAIN_ID. What the API decides by the chain id
 * would be decided for the wrong chain: on CHAIN_ID 31337 (the default) it takes the Hardhat
 * node's public dev keys as its own and offers /api/dev, which must never meet a real chain.
 */
export async function refuseAnotherChain(config: Pick<Config, "chainId" | "rpcUrl">): Promise<void> {
  const connected = await createPublicClient({ transport: http(config.rpcUrl) }).getChainId();
  if (connected === config.chainId) return;
  throw new Error(
    `Invalid configuration:\n  CHAIN_ID is ${config.chainId}, but the node at RPC_URL is on chain ${connected}: set CHAIN_ID to the node's chain, or RPC_URL to a node of chain ${config.chainId}`,
  );
}
