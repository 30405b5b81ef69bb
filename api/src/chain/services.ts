import type { Deployment } from "@agent-marketplace/contracts";
import { privateKeyToAccount } from "viem/accounts";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { createEscrowActions, type EscrowActions } from "./escrow-actions.ts";
import { type ChainReader, createChainReader } from "./reader.ts";
import { createRelayer, type Relayer } from "./relayer.ts";
import { createUsdcActions, type UsdcActions } from "./usdc-actions.ts";

export interface ChainServices {
  chain: ChainReader;
  relayer: Relayer;
  escrow: EscrowActions;
  usdc: UsdcActions;
  /** Sends the arbiter's rulings, when an arbiter is configured. */
  arbiterRelayer?: Relayer;
}

/**
 * The API's whole access to the chain, built from the configuration: the reader, the relayer (its
 * outbox tied to this chain instance, the hash of the escrow's deployment block) and the escrow
 * moves. Reads one block to tell this chain from an earlier one with the same id.
 */
export async function createChainServices(
  config: Config,
  db: Database,
  deployment?: Deployment,
): Promise<ChainServices> {
  const chain = createChainReader({ chainId: config.chainId, rpcUrl: config.rpcUrl, deployment });
  const startBlock = await chain.publicClient.getBlock({
    blockNumber: BigInt(chain.deployment.contracts.AgentEscrow.startBlock),
  });
  const relayer = createRelayer({
    db,
    publicClient: chain.publicClient,
    chainId: config.chainId,
    chainInstance: startBlock.hash,
    account: privateKeyToAccount(config.relayerPrivateKey),
  });
  const escrow = createEscrowActions({
    chainId: config.chainId,
    deployment: chain.deployment,
    publicClient: chain.publicClient,
    relayer,
    db,
    indexerWaitMs: config.indexerWaitMs,
  });
  const usdc = createUsdcActions({ chainId: config.chainId, usdc: escrow.usdc, relayer, now: escrow.now });
  const arbiterRelayer =
    config.arbiter &&
    createRelayer({
      db,
      publicClient: chain.publicClient,
      chainId: config.chainId,
      chainInstance: startBlock.hash,
      account: privateKeyToAccount(config.arbiter.privateKey),
    });
  return { chain, relayer, escrow, usdc, arbiterRelayer };
}
