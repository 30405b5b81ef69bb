import type { z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import type { MoveName, MoveProof, MoveResult } from "../../domain/transactions/escrow-moves.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerOrReceiptSecurity, bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MoveInstructions } from "../../schemas/escrow-moves.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";

/*
 * What the four moves' routes share: the route (200 done and indexed, 202 instructions for an
 * external party, and a retried request answered as the first was), the proof read from the body
 * and the 202 answer. Their guard (a party's key) is mounted in index.ts.
 */

export function moveRoute<A extends MoveName, S extends z.ZodTypeAny, R extends z.ZodTypeAny>(
  action: A,
  operationId: "deliverWork" | "releaseEscrow" | "refundEscrow" | "openDispute",
  summary: string,
  body: S,
  done: R,
  options: { receipt?: true; description?: string } = {},
) {
  // The buyer's moves an x402 payment's receipt token may make (release, dispute): auth/receipt-tokens.ts.
  const middleware: typeof guard.agent = options.receipt ? guard.agentOrReceipt : guard.agent;
  return createIdempotentRoute({
    method: "post",
    path: `/{id}/${action}` as `/{id}/${A}`,
    operationId,
    tags: ["Transactions"],
    summary,
    description: options.description,
    security: options.receipt ? bearerOrReceiptSecurity : bearerSecurity,
    middleware,
    request: {
      params: idParam("Transaction"),
      body: {
        content: { "application/json": { schema: body, example: MONEY_EXAMPLES[operationId].request } },
        required: action !== "release" && action !== "refund",
      },
    },
    responses: {
      200: {
        description: "Done on chain and indexed",
        content: { "application/json": { schema: done, example: MONEY_EXAMPLES[operationId][200] } },
      },
      202: {
        description: "External party: the call to send, then call again with tx_hash",
        content: { "application/json": { schema: MoveInstructions, example: MONEY_EXAMPLES[operationId][202] } },
      },
      ...errorResponses(400, 401, 403, 404, 409),
    },
  });
}

/** The body's proof, in the domain's terms. */
export function moveProof(body: {
  tx_hash?: string;
  signed?: { signature: string; nonce: string; sig_deadline: string };
}): MoveProof {
  return {
    txHash: body.tx_hash as Hex | undefined,
    signed: body.signed && {
      signature: body.signed.signature as Hex,
      nonce: body.signed.nonce,
      sigDeadline: body.signed.sig_deadline,
    },
  };
}

/** The 202 answer: what an external party sends or signs, then POSTs again with. */
export function pendingAnswer(result: Extract<MoveResult, { done: false }>, action: MoveName) {
  return {
    success: false as const,
    state: result.state,
    message: `Send the call below from your wallet (or have the typed data signed and relayed), then POST /${action} again with tx_hash`,
    instructions: result.instructions,
  };
}
