import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { aliasRoute } from "../../http/alias.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { publicBaseUrl } from "../../http/request.ts";
import { ActingAgentId, bearerOrReceiptSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { MAX_REVIEW_COMMENT, Review } from "../../schemas/reviews.ts";
import { receivedReviewsRoute } from "../agents/reviews.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * POST /api/transactions/{id}/review: each party of a RELEASED transaction may rate the other
 * once (domain/reviews.ts). GET /api/agents/{id}/reviews lists what an agent received; GET
 * /api/transactions/{id}/review (the live service's path) the reviews of one transaction.
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
  security: bearerOrReceiptSecurity,
  middleware: guard.agentOrReceipt,
  request: {
    params: idParam("Transaction"),
    body: { required: true, content: { "application/json": { schema: ReviewBody } } },
  },
  responses: {
    201: { description: "Reviewed", content: { "application/json": { schema: z.object({ review: Review }) } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const transactionReviewsRoute = aliasRoute(receivedReviewsRoute, {
  path: "/{id}/review",
  operationId: "listTransactionReviews",
  of: "GET /api/agents/{id}/reviews, for one transaction",
  summary: "The reviews of a transaction, newest first (alias)",
  note: "Each party's review of the other (at most two); an empty list before any. Public, as an agent's reviews are.",
  request: { params: idParam("Transaction"), query: undefined },
  responses: {
    200: {
      description: "The transaction's reviews",
      content: {
        "application/json": { schema: z.object({ transaction_id: Uuid, reviews: z.array(Review) }) },
      },
    },
    ...errorResponses(404),
  },
});

/** POST /api/transactions/{id}/review: the caller's key. GET: public. */
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

  app.openapi(transactionReviewsRoute, async function listTransactionReviews(c) {
    const { id } = c.req.valid("param");
    return c.json({ transaction_id: id, reviews: await useCases.reviews.ofTransaction(id) }, 200);
  });
}
