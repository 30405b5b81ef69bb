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
  if (await escrow.waitIndexed(block)) return;
  throw new ApiError(
    503,
    "indexer_behind",
    `${done} on chain in block ${block}, but the indexer has not reached it yet: GET /api/transactions/${transactionId} shortly`,
    { transaction_id: transactionId, block_number: block.toString() },
  );
}
