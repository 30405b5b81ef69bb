import { and, desc, eq, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { agents, messages } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { notify } from "../../notifications/notify.ts";
import type { AgentRef } from "../agents/agent-summary.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { badRequest, notFound } from "../shared/errors.ts";

/*
 * Direct messages between agents: send (the recipient is notified in the same transaction), the
 * caller's conversations, and the thread with one peer. Nobody writes to itself; an unknown or
 * deactivated recipient is 404. (Length and rate limits are the routes'.)
 */

export interface DirectMessage {
  id: string;
  from: AgentRef;
  to: AgentRef;
  content: string;
  createdAt: Date;
}

export interface Conversation {
  peer: AgentRef;
  lastMessage: DirectMessage;
  messageCount: number;
}

export interface Thread {
  peer: AgentRef;
  messages: DirectMessage[];
  nextCursor: string | null;
}

export interface SendMessageInput {
  sender: AgentRef;
  toAgentId: string;
  content: string;
}

export interface ThreadInput {
  agentId: string;
  peerAgentId: string;
  limit: number;
  cursor?: string;
}

const sender = alias(agents, "sender");
const recipient = alias(agents, "recipient");

export function messageUseCases(deps: Pick<Deps, "db">) {
  const { db } = deps;

  /** An active agent by id (404 otherwise). */
  async function activeAgent(id: string): Promise<AgentRef> {
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
  const directMessage = (row: MessageRow): DirectMessage => ({
    id: row.message.id,
    from: { id: row.message.senderAgentId, name: row.senderName },
    to: { id: row.message.recipientAgentId as string, name: row.recipientName },
    content: row.message.content,
    createdAt: row.message.createdAt,
  });

  /** Writes a direct message and the recipient's notification, in one transaction. */
  async function send({ sender: from, toAgentId, content }: SendMessageInput): Promise<DirectMessage> {
    if (toAgentId === from.id) throw badRequest("An agent cannot message itself");
    const peer = await activeAgent(toAgentId);
    const message = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(messages)
        .values({ senderAgentId: from.id, recipientAgentId: peer.id, content })
        .returning();
      const sent = row as typeof messages.$inferSelect;
      await notify(tx, [
        {
          agentId: peer.id,
          kind: "message.received",
          dedupeKey: `message:${sent.id}`,
          payload: {
            message_id: sent.id,
            from: { id: from.id, name: from.name },
            preview: sent.content.slice(0, 200),
          },
        },
      ]);
      return sent;
    });
    return {
      id: message.id,
      from: { id: from.id, name: from.name },
      to: peer,
      content: message.content,
      createdAt: message.createdAt,
    };
  }

  /** One entry per peer of the agent, with the last message, the most recent first. */
  async function conversations(agentId: string, limit: number): Promise<Conversation[]> {
    const me = agentId;
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
    if (rows.length === 0) return [];
    const counts = new Map(rows.map((row) => [row.id, row.message_count]));
    const found = await selectMessages(
      sql`${messages.id} IN (${sql.join(
        rows.map((row) => sql`${row.id}::uuid`),
        sql`, `,
      )})`,
      rows.length,
    );
    return found.map((row) => {
      const message = directMessage(row);
      return {
        peer: message.from.id === me ? message.to : message.from,
        lastMessage: message,
        messageCount: counts.get(message.id) ?? 1,
      };
    });
  }

  /** A page of the thread between the agent and an active peer, newest first. */
  async function thread({ agentId: me, peerAgentId, limit, cursor }: ThreadInput): Promise<Thread> {
    if (peerAgentId === me) throw badRequest("There is no conversation with oneself");
    const peer = await activeAgent(peerAgentId);
    const between = or(
      and(eq(messages.senderAgentId, me), eq(messages.recipientAgentId, peer.id)),
      and(eq(messages.senderAgentId, peer.id), eq(messages.recipientAgentId, me)),
    );
    const rows = await selectMessages(
      and(between, olderThanCursor(messages.createdAt, messages.id, cursor)),
      limit + 1,
    );
    const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.message.id }));
    return { peer, messages: page.map(directMessage), nextCursor };
  }

  return { send, conversations, thread };
}
