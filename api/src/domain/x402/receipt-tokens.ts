import { hash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database, DbTransaction } from "../../db/client.ts";
import { agents, receiptTokens, transactions } from "../../db/schema.ts";

/*
 * Receipt tokens: what the keyless buyer of an x402 payment acts with. `rcpt_` and 64 hex characters
 * (an API key is 64 hex alone, a session `sess_`), stored as SHA-256, each scoped to the one
 * transaction its payment funded. Issued only to the requests that presented the payment while it
 * was being settled: once settled, the authorization (signature included) is public in the
 * settlement's calldata, and presenting it again proves nothing.
 */

export const RECEIPT_TOKEN_PREFIX = "rcpt_";
const SHAPE = /^rcpt_[0-9a-f]{64}$/;

/** Whether `value` looks like a receipt token (it may still be unknown). */
export function isReceiptToken(value: string): boolean {
  return SHAPE.test(value);
}

/** What is stored and looked up: the token's SHA-256, hex. */
export function hashReceiptToken(token: string): string {
  return hash("sha256", token, "hex");
}

/** Issues a receipt token for `transactionId` in `tx`: the token, answered once, never stored. */
export async function issueReceiptToken(tx: Pick<DbTransaction, "insert">, transactionId: string): Promise<string> {
  const token = `${RECEIPT_TOKEN_PREFIX}${randomBytes(32).toString("hex")}`;
  await tx.insert(receiptTokens).values({ transactionId, tokenHash: hashReceiptToken(token) });
  return token;
}

/** What a live receipt token admits: its transaction, acting as that transaction's buyer. */
export interface ReceiptHolder {
  receiptId: string;
  transactionId: string;
  buyer: typeof agents.$inferSelect;
}

/** The holder of the receipt token whose hash is `tokenHash`, or undefined (unknown, or its buyer inactive). */
export async function receiptHolder(db: Database, tokenHash: string): Promise<ReceiptHolder | undefined> {
  const [found] = await db
    .select({ receiptId: receiptTokens.id, transactionId: receiptTokens.transactionId, buyer: agents })
    .from(receiptTokens)
    .innerJoin(transactions, eq(transactions.id, receiptTokens.transactionId))
    .innerJoin(agents, eq(agents.id, transactions.buyerAgentId))
    .where(eq(receiptTokens.tokenHash, tokenHash))
    .limit(1);
  return found?.buyer.isActive ? found : undefined;
}
