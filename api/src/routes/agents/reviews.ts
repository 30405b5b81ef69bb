import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { idParam } from "../../http/params.ts";
import { Cursor, errorResponses, Limit, queryOf, Uuid } from "../../schemas/common.ts";
import { Review } from "../../schemas/reviews.ts";
import type { RouteDeps } from "../route-deps.ts";

const ReviewPage = z
  .object({
    agent_id: Uuid,
    avg_rating: z.string().openapi({ description: "Over every review received, two decimals" }),
    review_count: z.number().int(),
    reviews: z.array(Review),
    next_cursor: z.string().nullable(),
  })
  .openapi("ReviewPage");

export const receivedReviewsRoute = createRoute({
  method: "get",
  path: "/{id}/reviews",
  operationId: "listAgentReviews",
  tags: ["Reputation"],
  summary: "Reviews an agent received, newest first",
  security: [],
  request: {
    params: idParam("Agent"),
    query: queryOf({ limit: Limit, cursor: Cursor }),
  },
  responses: {
    200: { description: "A page of reviews", content: { "application/json": { schema: ReviewPage } } },
    ...errorResponses(400, 404),
  },
});

/** GET /api/agents/{id}/reviews: public. */
export function registerReviews(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(receivedReviewsRoute, async function receivedReviews(c) {
    const page = await useCases.reviews.received(c.req.valid("param").id, c.req.valid("query"));
    return c.json(
      {
        agent_id: page.agentId,
        avg_rating: page.avgRating,
        review_count: page.reviewCount,
        reviews: page.reviews,
        next_cursor: page.nextCursor,
      },
      200,
    );
  });
}
