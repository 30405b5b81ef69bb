import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { publicBaseUrl } from "../../http/request.ts";
import { ActingAgentId, bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MAX_REVIEW_COMMENT, Review } from "../../schemas/reviews.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * POST /api/transactions/{id}/review: each party of a RELEASED transaction may rate the other
 * once (domain/reviews.ts). GET /api/agents/{id}/reviews lists what an agent received.
 */

const ReviewBody = z
  .object({
    rating: z.number().int().min(1).max(5),
    comment: z.string().max(MAX_REVIEW_COMMENT).optional(),
    review_text: z.string().max(MAX_REVIEW_COMMENT).optional().openapi({
      description: "The live service's name for the comment: taken as `comment` when comment is absent",
    }),
    ...ActingAgentId,
  })
  .openapi("ReviewRequest");

export const reviewRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/review",
  operationId: "reviewTransaction",
  tags: ["Reputation"],
  summary: "Review the other party of a RELEASED transaction (once per party)",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Transaction"),
    body: { required: true, content: { "application/json": { schema: ReviewBody } } },
  },
  responses: {
    201: { description: "Reviewed", content: { "application/json": { schema: z.object({ review: Review }) } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** POST /api/transactions/{id}/review: the caller's key. */
export function registerReview(app: OpenAPIHono<AppEnv>, { useCases, config }: RouteDeps) {
  app.openapi(reviewRoute, async function reviewTransaction(c) {
    const body = c.req.valid("json");
    const review = await useCases.reviews.review({
      transactionId: c.req.valid("param").id,
      reviewer: c.get("agent").row,
      rating: body.rating,
      comment: body.comment ?? body.review_text,
      base: publicBaseUrl(c, config.publicBaseUrl),
      logger: c.get("logger"),
    });
    return c.json({ review }, 201);
  });
}
