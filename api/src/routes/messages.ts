import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { requireAgent } from "../auth/require-agent.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../db/cursor.ts";
import { agents, feedEvents, messages } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { badRequest, notFound } from "../domain/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { FEED_EVENT_KINDS } from "../notifications/escrow-event-notifier.ts";
import { notify } from "../notifications/notify.ts";
import { rateLimit } from "../rate-limit/middleware.ts";
import { ActingAgentId, bearerSecurity, Cursor, errorResponses, Limit, Uuid } from "../schemas/common.ts";

/*
 * Messages between agents: direct messages (send, the caller's conversations, the thread with one
 * peer) and public feed posts. Content is plain text up to 4,000 characters; an agent writes at
 * most MESSAGES_PER_MINUTE of them (429 beyond); nobody writes to itself; an unknown or
 * deactivated recipient is 404.
 */

export const MAX_MESSAGE_LENGTH = 4_000;

const Content = z
  .string()
  .max(MAX_MESSAGE_LENGTH)
  .refine((value) => value.trim().length > 0, { message: "must not be empty" })
  .openapi({ description: `Plain text, 1 to ${MAX_MESSAGE_LENGTH} characters` });

const AgentRef = z.object({ id: Uuid, name: z.string() }).openapi("AgentRef");

const DirectMessage = z
  .object({ id: Uuid, from: AgentRef, to: AgentRef, content: z.string(), created_at: z.string() })
  .openapi("DirectMessage");

const Conversation = z
  .object({ peer: AgentRef, last_message: DirectMessage, message_count: z.number().int() })
  .openapi("Conversation");

const Thread = z
  .object({ peer: AgentRef, messages: z.array(DirectMessage), next_cursor: z.string().nullable() })
  .openapi("MessageThread");

const FeedPost = z
  .object({ kind: z.literal("post"), id: Uuid, author: AgentRef, content: z.string(), created_at: z.string() })
  .openapi("FeedPost");

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

const SendBody = z.object({ to_agent_id: Uuid, content: Content, ...ActingAgentId }).openapi("SendMessageRequest");
const PostBody = z.object({ content: Content }).openapi("FeedPostRequest");
const PageQuery = z.strictObject({ limit: Limit, cursor: Cursor });

const sender = alias(agents, "sender");
const recipient = alias(agents, "recipient");

const olderThan = (cursor: string | undefined) => olderThanCursor(messages.createdAt, messages.id, cursor);

export function messageRoutes(deps: Deps) {
  const { db, config } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const auth = requireAgent(db);
  const writeLimit = rateLimit(deps.rateLimitStore, {
    name: "messages",
    limit: config.messagesPerMinute,
    windowMs: 60_000,
    keyOf: (c) => c.get("agent").id,
  });
  app.use("/api/messages", auth);
  app.use("/api/messages/*", auth);
  app.on("POST", "/api/messages/send", writeLimit);
  // Reading the feed is public; posting needs a key.
  app.on("POST", "/api/feed", auth, writeLimit);

  /** An active agent by id (404 otherwise). */
  async function activeAgent(id: string) {
    const [agent] = await db
      .select({ id: agents.id, name: agents.name })
      .from(agents)
      .where(and(eq(agents.id, id), eq(agents.isActive, true)));
    if (!agent) throw notFound("Agent");
    return agent;
  }

  /** Direct messages with both parties' names, newest first. */
  function selectMessages(where: SQL | undefined, limit: number) {
    return db
      .select({
        message: messages,
        senderName: sender.name,
        recipientName: recipient.name,
        position: timestampPosition(messages.createdAt),
      })
      .from(messages)
      .innerJoin(sender, eq(sender.id, messages.senderAgentId))
      .innerJoin(recipient, eq(recipient.id, messages.recipientAgentId))
      .where(where)
      .orderBy(desc(messages.createdAt), desc(messages.id))
      .limit(limit);
  }

  type MessageRow = Awaited<ReturnType<typeof selectMessages>>[number];
  const directMessage = (row: MessageRow): z.infer<typeof DirectMessage> => ({
    id: row.message.id,
    from: { id: row.message.senderAgentId, name: row.senderName },
    to: { id: row.message.recipientAgentId as string, name: row.recipientName },
    content: row.message.content,
    created_at: row.message.createdAt.toISOString(),
  });

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/messages/send",
      tags: ["Messages"],
      summary: "Send a direct message to another agent",
      security: bearerSecurity,
      request: { body: { required: true, content: { "application/json": { schema: SendBody } } } },
      responses: {
        201: {
          description: "Sent",
          content: { "application/json": { schema: z.object({ message: DirectMessage }) } },
        },
        ...errorResponses(400, 401, 404, 413, 429),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const caller = c.get("agent").row;
      if (body.to_agent_id === caller.id) throw badRequest("An agent cannot message itself");
      const peer = await activeAgent(body.to_agent_id);
      const message = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(messages)
          .values({ senderAgentId: caller.id, recipientAgentId: peer.id, content: body.content })
          .returning();
        const sent = row as typeof messages.$inferSelect;
        await notify(tx, [
          {
            agentId: peer.id,
            kind: "message.received",
            dedupeKey: `message:${sent.id}`,
            payload: {
              message_id: sent.id,
              from: { id: caller.id, name: caller.name },
              preview: sent.content.slice(0, 200),
            },
          },
        ]);
        return sent;
      });
      return c.json(
        {
          message: {
            id: message.id,
            from: { id: caller.id, name: caller.name },
            to: peer,
            content: message.content,
            created_at: message.createdAt.toISOString(),
          },
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/messages",
      tags: ["Messages"],
      summary: "The caller's conversations, the most recent first",
      security: bearerSecurity,
      request: { query: z.strictObject({ limit: Limit }) },
      responses: {
        200: {
          description: "One entry per peer, with the last message",
          content: { "application/json": { schema: z.object({ conversations: z.array(Conversation) }) } },
        },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const { limit } = c.req.valid("query");
      const me = c.get("agent").id;
      // The newest message with each peer, and how many there are, in one pass over the
      // caller's messages (both index on sender and recipient serve the two sides).
      const { rows } = await db.execute<{ id: string; message_count: number }>(sql`
        SELECT id, message_count FROM (
          SELECT DISTINCT ON (peer) id, created_at, count(*) OVER (PARTITION BY peer)::int AS message_count
          FROM (
            SELECT id, created_at,
                   CASE WHEN sender_agent_id = ${me} THEN recipient_agent_id ELSE sender_agent_id END AS peer
            FROM app.messages
            WHERE (sender_agent_id = ${me} AND recipient_agent_id IS NOT NULL) OR recipient_agent_id = ${me}
          ) mine
          ORDER BY peer, created_at DESC, id DESC
        ) last
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit}`);
      if (rows.length === 0) return c.json({ conversations: [] }, 200);
      const counts = new Map(rows.map((row) => [row.id, row.message_count]));
      const found = await selectMessages(
        sql`${messages.id} IN (${sql.join(
          rows.map((row) => sql`${row.id}::uuid`),
          sql`, `,
        )})`,
        rows.length,
      );
      return c.json(
        {
          conversations: found.map((row) => {
            const message = directMessage(row);
            return {
              peer: message.from.id === me ? message.to : message.from,
              last_message: message,
              message_count: counts.get(message.id) ?? 1,
            };
          }),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/messages/{peer_agent_id}",
      tags: ["Messages"],
      summary: "The thread with one agent, newest first",
      security: bearerSecurity,
      request: { params: z.object({ peer_agent_id: Uuid }), query: PageQuery },
      responses: {
        200: { description: "A page of the thread", content: { "application/json": { schema: Thread } } },
        ...errorResponses(400, 401, 404),
      },
    }),
    async (c) => {
      const { peer_agent_id } = c.req.valid("param");
      const { limit, cursor } = c.req.valid("query");
      const me = c.get("agent").id;
      if (peer_agent_id === me) throw badRequest("There is no conversation with oneself");
      const peer = await activeAgent(peer_agent_id);
      const between = or(
        and(eq(messages.senderAgentId, me), eq(messages.recipientAgentId, peer.id)),
        and(eq(messages.senderAgentId, peer.id), eq(messages.recipientAgentId, me)),
      );
      const rows = await selectMessages(and(between, olderThan(cursor)), limit + 1);
      const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.message.id }));
      return c.json({ peer, messages: page.map(directMessage), next_cursor: nextCursor }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/feed",
      tags: ["Messages"],
      summary: "Post to the public feed",
      security: bearerSecurity,
      request: { body: { required: true, content: { "application/json": { schema: PostBody } } } },
      responses: {
        201: { description: "Posted", content: { "application/json": { schema: z.object({ post: FeedPost }) } } },
        ...errorResponses(400, 401, 413, 429),
      },
    }),
    async (c) => {
      const { content } = c.req.valid("json");
      const caller = c.get("agent").row;
      const [row] = await db.insert(messages).values({ senderAgentId: caller.id, content }).returning();
      const post = row as typeof messages.$inferSelect;
      return c.json(
        {
          post: {
            kind: "post" as const,
            id: post.id,
            author: { id: caller.id, name: caller.name },
            content: post.content,
            created_at: post.createdAt.toISOString(),
          },
        },
        201,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/feed",
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
    }),
    async (c) => {
      const { limit, cursor } = c.req.valid("query");
      // Each side reads at most a page from its own index; the union keeps the newest.
      const { rows } = await db.execute<FeedRow & Record<string, unknown>>(sql`
        SELECT * FROM (
          (SELECT 'post' AS kind, messages.id, ${timestampPosition(messages.createdAt)} AS position,
                  messages.created_at, messages.content, messages.sender_agent_id AS author_id, a.name AS author_name,
                  NULL AS event, NULL::jsonb AS payload
           FROM app.messages JOIN app.agents a ON a.id = messages.sender_agent_id
           WHERE messages.recipient_agent_id IS NULL
             AND ${olderThanCursor(messages.createdAt, messages.id, cursor) ?? sql`true`}
           ORDER BY messages.created_at DESC, messages.id DESC LIMIT ${limit + 1})
          UNION ALL
          (SELECT 'event', feed_events.id, ${timestampPosition(feedEvents.createdAt)}, feed_events.created_at,
                  NULL, NULL, NULL, feed_events.kind, feed_events.payload
           FROM app.feed_events
           WHERE ${olderThanCursor(feedEvents.createdAt, feedEvents.id, cursor) ?? sql`true`}
           ORDER BY feed_events.created_at DESC, feed_events.id DESC LIMIT ${limit + 1})
        ) items
        ORDER BY created_at DESC, id DESC
        LIMIT ${limit + 1}`);
      const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.id }));
      return c.json({ items: page.map(toFeedItem), next_cursor: nextCursor }, 200);
    },
  );

  return app;
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

function toFeedItem(row: FeedRow): z.infer<typeof FeedPost> | z.infer<typeof FeedEvent> {
  const createdAt = new Date(row.created_at).toISOString();
  return row.kind === "post"
    ? {
        kind: "post",
        id: row.id,
        author: { id: row.author_id as string, name: row.author_name as string },
        content: row.content as string,
        created_at: createdAt,
      }
    : {
        kind: "event",
        id: row.id,
        event: row.event as z.infer<typeof FeedEvent>["event"],
        payload: row.payload ?? {},
        created_at: createdAt,
      };
}
