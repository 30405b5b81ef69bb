import type { Context, MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { forbidden, unauthorized } from "../domain/shared/errors.ts";
import { hashReceiptToken, isReceiptToken, type ReceiptHolder, receiptHolder } from "../domain/x402/receipt-tokens.ts";
import type { AppEnv, GuardEnv } from "../http/env.ts";

/*
 * The receipt token of an x402 payment (`Authorization: Bearer rcpt_…`, domain/x402/receipt-tokens.ts):
 * its keyless buyer's credential on that payment's transaction only. The routes that take it
 * declare the `agentOrReceipt` or `viewerOrReceipt` guard (http/guards.ts): GET the transaction and
 * its deliverable, release, dispute, evidence and review, under /api/transactions/{id}. There it
 * acts as the transaction's buyer; on another transaction it is 403, and every guard that asks for
 * an agent refuses it with 403 too. The request budget it spends is its buyer's
 * (rate-limit/middleware.ts), as a key's is its agent's.
 */

const BEARER = /^Bearer (\S+)$/;

/** The receipt token the request's Authorization header carries, if it holds one. */
export function receiptTokenOf(c: Context<AppEnv>): string | undefined {
  const header = c.req.header("authorization");
  const token = header ? BEARER.exec(header.trim())?.[1] : undefined;
  return token && isReceiptToken(token) ? token : undefined;
}

/** The live holder of the request's receipt `token`, looked up once a request (the budget, then a guard). */
export async function requestReceipt(c: Context<AppEnv>, db: Database, token: string) {
  const known = c.get("receipt");
  if (known !== undefined) return known ?? undefined;
  const holder = await receiptHolder(db, hashReceiptToken(token));
  c.set("receipt", holder ?? null);
  return holder;
}

/** 403: a receipt token on a route that is not one of its transaction's. */
export function receiptOutOfScope() {
  return forbidden(
    "A receipt token acts only on its own transaction: GET /api/transactions/{id} and its /deliverable, POST its /release, /dispute, /evidence and /review",
  );
}

/**
 * The guard in front of `fallback` (an agent's or a viewer's) on a route of one transaction: a
 * receipt token of that transaction acts as its buyer (401 for an unknown token, 403 for another
 * transaction's); any other request is `fallback`'s to judge.
 */
export function receiptOr(db: Database, fallback: MiddlewareHandler<GuardEnv>): MiddlewareHandler<GuardEnv> {
  return async (c, next) => {
    const token = receiptTokenOf(c);
    if (!token) return fallback(c, next);
    const holder: ReceiptHolder | undefined = await requestReceipt(c, db, token);
    if (!holder) throw unauthorized("This receipt token is not valid");
    if (c.req.param("id")?.toLowerCase() !== holder.transactionId.toLowerCase()) throw receiptOutOfScope();
    c.set("agent", { id: holder.buyer.id, keyId: `receipt:${holder.receiptId}`, row: holder.buyer });
    c.get("logger").setBindings({ agent_id: holder.buyer.id, receipt_id: holder.receiptId });
    await next();
  };
}
