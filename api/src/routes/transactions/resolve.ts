import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * POST /api/transactions/{id}/resolve: the arbiter's ruling (the arbiter's key or session), sent
 * by the arbiter's own key; its note is kept and shown to both parties in `resolution.note`.
 */

const MAX_NOTE_CHARS = 4_000;

const ResolveBody = z
  .object({
    seller_bps: z.number().int().min(0).max(10_000).openapi({ description: "The seller's share, in basis points" }),
    note: z
      .string()
      .max(MAX_NOTE_CHARS)
      .optional()
      .openapi({ description: "Why: kept with the ruling, shown to both parties and sent in their notification" }),
  })
  .openapi("ResolveRequest");

const Resolved = z
  .object({
    transaction_id: Uuid,
    state: z.string(),
    tx_hash: z.string(),
    resolution: z.object({
      seller_bps: z.number().int(),
      seller_received_wei: z.string(),
      buyer_refunded_wei: z.string(),
      fee_wei: z.string(),
      note: z.string().nullable(),
    }),
  })
  .openapi("Resolved");

export const resolveRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/resolve",
  operationId: "resolveDispute",
  tags: ["Transactions"],
  summary: "Settle a dispute: seller_bps of the amount to the seller, less the fee; the rest to the buyer (arbiter)",
  security: bearerSecurity,
  middleware: guard.arbiter,
  request: {
    params: idParam("Transaction"),
    body: {
      content: { "application/json": { schema: ResolveBody, example: MONEY_EXAMPLES.resolveDispute.request } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "Settled on chain and indexed",
      content: { "application/json": { schema: Resolved, example: MONEY_EXAMPLES.resolveDispute[200] } },
    },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** POST /api/transactions/{id}/resolve: the arbiter's key or session. */
export function registerResolve(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(resolveRoute, async function resolveDispute(c) {
    const { id } = c.req.valid("param");
    const { seller_bps, note } = c.req.valid("json");
    return c.json(await useCases.disputes.resolve({ transactionId: id, sellerBps: seller_bps, note }), 200);
  });
}
