import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { ActingAgentId } from "../../schemas/common.ts";
import { MoveDone, MoveProofFields } from "../../schemas/escrow-moves.ts";
import type { RouteDeps } from "../route-deps.ts";
import { moveProof, moveRoute, pendingAnswer } from "./move-route.ts";

/* POST /api/transactions/{id}/refund: the whole amount back to the buyer (buyer before delivery, or the seller). */

const RefundBody = z.object({ ...ActingAgentId, ...MoveProofFields }).openapi("RefundRequest");
const Refunded = z.object({ ...MoveDone, refunded_wei: z.string() }).openapi("Refunded");

export const refundRoute = moveRoute("refund", "refundEscrow", "Refund the buyer", RefundBody, Refunded);

/** POST /api/transactions/{id}/refund: a party's key (and an optional Idempotency-Key). */
export function registerRefund(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(refundRoute, async function refund(c) {
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof RefundBody>;
    const result = await useCases.escrowMoves.refund({
      caller: c.get("agent").row,
      transactionId: id,
      ...moveProof(body),
    });
    if (!result.done) return c.json(pendingAnswer(result, "refund"), 202);
    return c.json(
      {
        success: true as const,
        message: "Refunded: the whole amount went back to the buyer.",
        transaction_id: id,
        state: result.state,
        tx_hash: result.txHash,
        refunded_wei: result.row.escrow?.buyerPayout ?? "0",
      },
      200,
    );
  });
}
