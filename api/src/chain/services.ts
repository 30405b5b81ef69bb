import type { Deployment } from "@agent-marketplace/contracts";
import { privateKeyToAccount } from "viem/accounts";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { createIndexedBlocks, type IndexedBlocks } from "../db/indexed-blocks.ts";
import { createErc8004Actions, type Erc8004Actions } from "./erc8004-actions.ts";
import { createEscrowActions, type EscrowActions } from "./escrow-actions.ts";
import { createHostedSender, type HostedSender } from "./hosted-sender.ts";
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
  /** The ERC-8004 identity and reputation registries. */
  erc8004: Erc8004Actions;
  /** Hosted agents' own transactions, their gas topped up by the relayer. */
  hostedSender: HostedSender;
  /** How far the indexer has got: writes wait for their block (read-your-writes). */
  indexed: IndexedBlocks;
}

/**
 * The API's whole access to the chain, built from the configuration: the reader, the relayer (its
 * outbox tied to this chain instance, the hash of the escrow's deployment block), the escrow
 * moves, the ERC-8004 registries and hosted agents' own transactions. Reads one block to tell this chain from an earlier one with the same id.
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
  });
  const usdc = createUsdcActions({ chainId: config.chainId, usdc: escrow.usdc, now: escrow.now });
  const indexed = createIndexedBlocks(db, config.chainId, config.indexerWaitMs);
  const arbiterRelayer =
    config.arbiter &&
    createRelayer({
      db,
      publicClient: chain.publicClient,
      chainId: config.chainId,
      chainInstance: startBlock.hash,
      account: privateKeyToAccount(config.arbiter.privateKey),
    });
  const erc8004 = createErc8004Actions({
    chainId: config.chainId,
    deployment: chain.deployment,
    publicClient: chain.publicClient,
  });
  const hostedSender = createHostedSender({
    db,
    publicClient: chain.publicClient,
    chainId: config.chainId,
    chainInstance: startBlock.hash,
    platformRelayer: relayer,
  });
  return { chain, relayer, escrow, usdc, arbiterRelayer, erc8004, hostedSender, indexed };
}
