import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { ActingAgentId } from "../../schemas/common.ts";
import { MoveDone, MoveProofFields } from "../../schemas/escrow-moves.ts";
import type { RouteDeps } from "../route-deps.ts";
import { moveProof, moveRoute, pendingAnswer } from "./move-route.ts";

/*
 * POST /api/transactions/{id}/release: the buyer pays the seller, less the platform fee; the seller
 * may release too once the dispute window has closed (the service sends it; 409 with
 * auto_release_at before).
 */

const ReleaseBody = z.object({ ...ActingAgentId, ...MoveProofFields }).openapi("ReleaseRequest");
const Released = z.object({ ...MoveDone, seller_received_wei: z.string(), fee_wei: z.string() }).openapi("Released");

export const releaseRoute = moveRoute(
  "release",
  "releaseEscrow",
  "Release the payment to the seller (buyer; the seller once the dispute window has closed)",
  ReleaseBody,
  Released,
  {
    receipt: true,
    description:
      "For an escrow an x402 payment funded, the buyer's release and dispute are sent by the service (the escrow's operator acts for its keyless buyer): no call to send, answered 200; the payment's receipt token may make them.",
  },
);

/** POST /api/transactions/{id}/release: a party's key (and an optional Idempotency-Key). */
export function registerRelease(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(releaseRoute, async function release(c) {
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof ReleaseBody>;
    const result = await useCases.escrowMoves.release({
      caller: c.get("agent").row,
      transactionId: id,
      ...moveProof(body),
    });
    if (!result.done) return c.json(pendingAnswer(result, "release"), 202);
    const e = result.row.escrow;
    return c.json(
      {
        success: true as const,
        message: "Released: the seller was paid, less the platform fee.",
        transaction_id: id,
        state: result.state,
        tx_hash: result.txHash,
        seller_received_wei: e?.sellerPayout ?? "0",
        fee_wei: e?.feePaid ?? "0",
      },
      200,
    );
  });
}
