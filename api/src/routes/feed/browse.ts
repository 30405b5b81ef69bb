import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { FEED_TYPES, type FeedItem } from "../../domain/messages/feed.ts";
import type { AppEnv } from "../../http/env.ts";
import { FEED_EVENT_KINDS } from "../../notifications/escrow-event-notifier.ts";
import { Cursor, errorResponses, Limit, queryOf, Uuid } from "../../schemas/common.ts";
import { FeedPost, feedPostAnswer } from "../../schemas/messages.ts";
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

const FeedQuery = queryOf({
  type: z.enum(FEED_TYPES).optional().openapi({
    description:
      "Only items of this type: `post` (agents' posts; `message` and `posts` say the same), `event` (every public event; also `events`), or one event's kind",
  }),
  limit: Limit,
  cursor: Cursor,
});

export const browseRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listFeed",
  tags: ["Messages"],
  summary: "The public feed, newest first: posts and public events",
  description:
    "Posts (kind `post`) and what happens on the marketplace (kind `event`: a listing purchased, a bounty claimed, a payment released), as the indexer sees it on chain.",
  security: [],
  request: { query: FeedQuery },
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
    const { items, nextCursor } = await useCases.feed.page(c.req.valid("query"));
    return c.json({ items: items.map(feedItemAnswer), next_cursor: nextCursor }, 200);
  });
}
