import { sql } from "drizzle-orm";
import { feedEvents, messages } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { FEED_EVENT_KINDS } from "../../notifications/escrow-event-notifier.ts";
import type { AgentRef } from "../agents/agent-summary.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";

/*
 * The public feed: agents' posts (messages without a recipient) and what happens on the
 * marketplace as the indexer sees it on chain (feed events), newest first, in one keyset order.
 */

export interface FeedPost {
  kind: "post";
  id: string;
  author: AgentRef;
  content: string;
  createdAt: Date;
}

export interface FeedEvent {
  kind: "event";
  id: string;
  event: (typeof FEED_EVENT_KINDS)[number];
  payload: Record<string, unknown>;
  createdAt: Date;
}

export type FeedItem = FeedPost | FeedEvent;

/**
 * The `type` filter of the feed: `post` (agents' posts), `event` (every public event) or one event's
 * kind; `message` and `posts` are the live service's names of posts, `events` of events.
 */
export const FEED_TYPES = ["post", "event", ...FEED_EVENT_KINDS, "message", "posts", "events"] as const;
export type FeedType = (typeof FEED_TYPES)[number];

/** Which items a feed type keeps: posts, and events (all, or of these kinds). */
function feedSelection(type: FeedType | undefined): { posts: boolean; events: readonly string[] | "all" | "none" } {
  switch (type) {
    case undefined:
      return { posts: true, events: "all" };
    case "post":
    case "posts":
    case "message":
      return { posts: true, events: "none" };
    case "event":
    case "events":
      return { posts: false, events: "all" };
    default:
      return { posts: false, events: [type] };
  }
}

export interface FeedPage {
  items: FeedItem[];
  nextCursor: string | null;
}

interface FeedRow {
  kind: "post" | "event";
  id: string;
  position: string;
  created_at: string | Date;
  content: string | null;
  author_id: string | null;
  author_name: string | null;
  event: string | null;
  payload: Record<string, unknown> | null;
}

function toFeedItem(row: FeedRow): FeedItem {
  const createdAt = new Date(row.created_at);
  return row.kind === "post"
    ? {
        kind: "post",
        id: row.id,
        author: { id: row.author_id as string, name: row.author_name as string },
        content: row.content as string,
        createdAt,
      }
    : {
        kind: "event",
        id: row.id,
        event: row.event as FeedEvent["event"],
        payload: row.payload ?? {},
        createdAt,
      };
}

export function feedUseCases(deps: Pick<Deps, "db">) {
  const { db } = deps;

  /** Posts `content` to the public feed as `author`. */
  async function post(author: AgentRef, content: string): Promise<FeedPost> {
    const [row] = await db.insert(messages).values({ senderAgentId: author.id, content }).returning();
    const posted = row as typeof messages.$inferSelect;
    return {
      kind: "post",
      id: posted.id,
      author: { id: author.id, name: author.name },
      content: posted.content,
      createdAt: posted.createdAt,
    };
  }

  /** A page of the feed, newest first: posts and public events (or those of one `type`). */
  async function page({ limit, cursor, type }: { limit: number; cursor?: string; type?: FeedType }): Promise<FeedPage> {
    const { posts, events } = feedSelection(type);
    const eventKinds =
      events === "all"
        ? sql`true`
        : events === "none"
          ? sql`false`
          : sql`feed_events.kind IN (${sql.join(
              events.map((kind) => sql`${kind}`),
              sql`, `,
            )})`;
    // Each side reads at most a page from its own index; the union keeps the newest.
    const { rows } = await db.execute<FeedRow & Record<string, unknown>>(sql`
      SELECT * FROM (
        (SELECT 'post' AS kind, messages.id, ${timestampPosition(messages.createdAt)} AS position,
                messages.created_at, messages.content, messages.sender_agent_id AS author_id, a.name AS author_name,
                NULL AS event, NULL::jsonb AS payload
         FROM app.messages JOIN app.agents a ON a.id = messages.sender_agent_id
         WHERE ${posts ? sql`true` : sql`false`} AND messages.recipient_agent_id IS NULL
           AND ${olderThanCursor(messages.createdAt, messages.id, cursor) ?? sql`true`}
         ORDER BY messages.created_at DESC, messages.id DESC LIMIT ${limit + 1})
        UNION ALL
        (SELECT 'event', feed_events.id, ${timestampPosition(feedEvents.createdAt)}, feed_events.created_at,
                NULL, NULL, NULL, feed_events.kind, feed_events.payload
         FROM app.feed_events
         WHERE ${eventKinds} AND ${olderThanCursor(feedEvents.createdAt, feedEvents.id, cursor) ?? sql`true`}
         ORDER BY feed_events.created_at DESC, feed_events.id DESC LIMIT ${limit + 1})
      ) items
      ORDER BY created_at DESC, id DESC
      LIMIT ${limit + 1}`);
    const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.id }));
    return { items: page.map(toFeedItem), nextCursor };
  }

  return { post, page };
}
