import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { ActingAgentId } from "../../schemas/common.ts";
import { MoveDone, MoveProofFields } from "../../schemas/escrow-moves.ts";
import type { RouteDeps } from "../route-deps.ts";
import { moveProof, moveRoute, pendingAnswer } from "./move-route.ts";

/* POST /api/transactions/{id}/dispute: either party stops the escrow for the arbiter to settle. */

const MAX_REASON_CHARS = 4_000;

const DisputeBody = z
  .object({ reason: z.string().trim().min(1).max(MAX_REASON_CHARS), ...ActingAgentId, ...MoveProofFields })
  .openapi("DisputeRequest");
const Disputed = z.object({ ...MoveDone }).openapi("Disputed");

export const disputeRoute = moveRoute(
  "dispute",
  "openDispute",
  "Open a dispute (either party)",
  DisputeBody,
  Disputed,
  {
    receipt: true,
    description:
      "For an escrow an x402 payment funded, the buyer's release and dispute are sent by the service (the escrow's operator acts for its keyless buyer): no call to send, answered 200; the payment's receipt token may make them.",
  },
);

/** POST /api/transactions/{id}/dispute: a party's key (and an optional Idempotency-Key). */
export function registerDispute(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(disputeRoute, async function dispute(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await useCases.escrowMoves.dispute({
      caller: c.get("agent").row,
      transactionId: id,
      reason: body.reason,
      ...moveProof(body),
    });
    if (!result.done) return c.json(pendingAnswer(result, "dispute"), 202);
    return c.json(
      {
        success: true as const,
        message: "Disputed: the arbiter will settle it. Add evidence while it is open.",
        transaction_id: id,
        state: result.state,
        tx_hash: result.txHash,
      },
      200,
    );
  });
}
