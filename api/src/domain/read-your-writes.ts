import type { EscrowActions } from "../chain/escrow-actions.ts";
import { ApiError } from "../http/errors.ts";

/**
 * Read-your-writes: a write answers once the indexer has the block of its transaction, so the
 * next read shows it. If the indexer does not get there in time the write still happened on chain:
 * the answer is 503 `indexer_behind`, naming the transaction to read again shortly.
 */
export async function awaitIndexed(
  escrow: Pick<EscrowActions, "waitIndexed">,
  block: bigint,
  done: string,
  transactionId: string,
): Promise<void> {
  await awaitIndexedBlock(escrow, block, {
    done,
    readAgain: `/api/transactions/${transactionId}`,
    details: { transaction_id: transactionId },
  });
}

/** The same for any write: `readAgain` is the path whose answer will show it. */
export async function awaitIndexedBlock(
  escrow: Pick<EscrowActions, "waitIndexed">,
  block: bigint,
  what: { done: string; readAgain: string; details?: Record<string, unknown> },
): Promise<void> {
  if (await escrow.waitIndexed(block)) return;
  throw new ApiError(
    503,
    "indexer_behind",
    `${what.done} on chain in block ${block}, but the indexer has not reached it yet: GET ${what.readAgain} shortly`,
    { ...what.details, block_number: block.toString() },
  );
}
