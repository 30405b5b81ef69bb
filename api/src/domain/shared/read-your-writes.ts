import type { IndexedBlocks } from "../../db/indexed-blocks.ts";
import { IndexerBehindError, type RecordRef } from "./errors.ts";

/** What a write did and which record will show it, for the answer if the indexer is late. */
export interface IndexedWrite {
  /** What happened on chain, as the answer says it ("Funded", "Claimed", ...). */
  done: string;
  /** The record whose read will show it (the HTTP layer names its path). */
  record: RecordRef;
  details?: Record<string, unknown>;
}

/** A write on a marketplace transaction: read the transaction again. */
export function transactionWrite(done: string, transactionId: string): IndexedWrite {
  return { done, record: { kind: "transaction", transactionId }, details: { transaction_id: transactionId } };
}

/**
 * Read-your-writes: a write answers once the indexer has the block of its transaction, so the
 * next read shows it. If the indexer does not get there in time the write still happened on chain:
 * {@link IndexerBehindError} (503 `indexer_behind`) names the record to read again shortly.
 */
export async function awaitIndexed(indexed: IndexedBlocks, block: bigint, what: IndexedWrite): Promise<void> {
  if (await indexed.wait(block)) return;
  throw new IndexerBehindError(
    `${what.done} on chain in block ${block}, but the indexer has not reached it yet`,
    { ...what.details, block_number: block.toString() },
    what.record,
  );
}
