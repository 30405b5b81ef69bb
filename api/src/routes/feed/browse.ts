import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { FeedItem } from "../../domain/messages/feed.ts";
import type { AppEnv } from "../../http/env.ts";
import { FEED_EVENT_KINDS } from "../../notifications/escrow-event-notifier.ts";
import { errorResponses, Uuid } from "../../schemas/common.ts";
import { FeedPost, feedPostAnswer, PageQuery } from "../../schemas/messages.ts";
import type { RouteDeps } from "../route-deps.ts";

const FeedEvent = z
  .object({
    kind: z.literal("event"),
    id: Uuid,
    event: z.enum(FEED_EVENT_KINDS),
    payload: z.record(z.string(), z.unknown()).openapi({
      description: "transaction_id, listing { id, title }, buyer and seller { id, name }, amount_wei, tx_hash",
    }),
    created_at: z.string(),
  })
  .openapi("FeedEvent");

export const browseRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listFeed",
  tags: ["Messages"],
  summary: "The public feed, newest first: posts and public events",
  description:
    "Posts (kind `post`) and what happens on the marketplace (kind `event`: a listing purchased, a bounty claimed, a payment released), as the indexer sees it on chain.",
  request: { query: PageQuery },
  responses: {
    200: {
      description: "A page of the feed",
      content: {
        "application/json": {
          schema: z.object({ items: z.array(z.union([FeedPost, FeedEvent])), next_cursor: z.string().nullable() }),
        },
      },
    },
    ...errorResponses(400),
  },
});

function feedItemAnswer(item: FeedItem): z.infer<typeof FeedPost> | z.infer<typeof FeedEvent> {
  if (item.kind === "post") return feedPostAnswer(item);
  return {
    kind: "event",
    id: item.id,
    event: item.event,
    payload: item.payload,
    created_at: item.createdAt.toISOString(),
  };
}

/** GET /api/feed: public. */
export function registerBrowse(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(browseRoute, async function browseFeed(c) {
    const { limit, cursor } = c.req.valid("query");
    const { items, nextCursor } = await useCases.feed.page({ limit, cursor });
    return c.json({ items: items.map(feedItemAnswer), next_cursor: nextCursor }, 200);
  });
}
