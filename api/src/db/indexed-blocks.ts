import { IndexedBlockWatcher } from "@agent-marketplace/indexer";
import type { Database } from "./client.ts";

/** How far the indexer has got on this chain, from its checkpoint in Postgres. */
export interface IndexedBlocks {
  /** Waits until the indexer has `blockNumber` (read-your-writes); false if it does not in time. */
  wait(blockNumber: bigint): Promise<boolean>;
}

/** One checkpoint poll for all the requests of this process that wait for their block. */
export function createIndexedBlocks(db: Database, chainId: number, waitMs: number): IndexedBlocks {
  const watcher = new IndexedBlockWatcher((text) => db.$client.query(text), chainId);
  return { wait: (blockNumber) => watcher.wait(blockNumber, waitMs) };
}
