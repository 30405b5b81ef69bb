import type { Database } from "../../db/client.ts";
import { acceptedTxHashes } from "../../db/schema.ts";
import { conflict } from "../shared/errors.ts";

/**
 * Records a tx_hash an external agent handed in as proof of a step; 409 if it was ever accepted
 * before, for any step of any transaction.
 */
export async function acceptTxHashOnce(
  db: Database,
  proof: { txHash: string; chainId: number; purpose: string; transactionId: string; agentId: string },
): Promise<void> {
  const inserted = await db
    .insert(acceptedTxHashes)
    .values({ ...proof, txHash: proof.txHash.toLowerCase() })
    .onConflictDoNothing()
    .returning({ txHash: acceptedTxHashes.txHash });
  if (inserted.length === 0) {
    throw conflict(`tx_hash ${proof.txHash} was already accepted; a transaction hash proves one step once`, {
      transaction_id: proof.transactionId,
    });
  }
}
