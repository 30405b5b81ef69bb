import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { autoReleaseAt } from "../../domain/transactions/transactions.ts";
import type { AppEnv } from "../../http/env.ts";
import { ActingAgentId, HttpUrl } from "../../schemas/common.ts";
import { MoveDone, MoveProofFields } from "../../schemas/escrow-moves.ts";
import type { RouteDeps } from "../route-deps.ts";
import { moveProof, moveRoute, pendingAnswer } from "./move-route.ts";

/* POST /api/transactions/{id}/deliver: the seller delivers the work; its hash goes on chain. */

const MAX_DELIVERABLE_CHARS = 100_000;

const DeliverBody = z
  .object({
    deliverable: z.string().min(1).max(MAX_DELIVERABLE_CHARS).openapi({ description: "The work, or a link to it" }),
    deliverable_url: HttpUrl.optional().openapi({
      description:
        "A link to the work, kept with the content and shown with it. The on-chain deliverable_hash is keccak256(content) without a link, keccak256(abi.encode(string content, string url)) with one",
    }),
    ...ActingAgentId,
    ...MoveProofFields,
  })
  .openapi("DeliverRequest");

const Delivered = z
  .object({
    ...MoveDone,
    delivered_at: z.string(),
    deliverable_hash: z.string(),
    deliverable_url: z.string().nullable(),
    dispute_window_hours: z.number(),
    auto_release_at: z.string().nullable().openapi({
      description:
        "When the dispute window closes: the payment is then released to the seller without the buyer (by the keeper, or the seller's own release)",
    }),
  })
  .openapi("Delivered");

export const deliverRoute = moveRoute("deliver", "deliverWork", "Deliver the work (seller)", DeliverBody, Delivered);

/** POST /api/transactions/{id}/deliver: a party's key (and an optional Idempotency-Key). */
export function registerDeliver(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(deliverRoute, async function deliver(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await useCases.escrowMoves.deliver({
      caller: c.get("agent").row,
      transactionId: id,
      deliverable: body.deliverable,
      deliverableUrl: body.deliverable_url,
      ...moveProof(body),
    });
    if (!result.done) return c.json(pendingAnswer(result, "deliver"), 202);
    const e = result.row.escrow;
    return c.json(
      {
        success: true as const,
        message:
          "Delivered. The buyer may release, or dispute within the dispute window; after it (auto_release_at) the payment is released to you.",
        transaction_id: id,
        state: result.state,
        tx_hash: result.txHash,
        delivered_at: new Date(Number(e?.deliveredAt ?? 0) * 1000).toISOString(),
        deliverable_hash: e?.deliverableHash ?? result.deliverableHash,
        deliverable_url: body.deliverable_url ?? null,
        dispute_window_hours: (e?.disputeWindow ?? 0) / 3600,
        auto_release_at: autoReleaseAt(e ?? null),
      },
      200,
    );
  });
}
