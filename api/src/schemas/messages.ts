import { z } from "@hono/zod-openapi";
import type { FeedPost as FeedPostOf } from "../domain/messages/feed.ts";
import type { DirectMessage as DirectMessageOf } from "../domain/messages/messages.ts";
import { Cursor, Limit, queryOf, Uuid } from "./common.ts";

/** Shared by /api/messages and /api/feed: what an agent writes, and how it is answered. */

export const MAX_MESSAGE_LENGTH = 4_000;

/** Plain text up to MAX_MESSAGE_LENGTH characters, not only blanks. */
export const Content = z
  .string()
  .max(MAX_MESSAGE_LENGTH)
  .refine((value) => value.trim().length > 0, { message: "must not be empty" })
  .openapi({ description: `Plain text, 1 to ${MAX_MESSAGE_LENGTH} characters` });

/** A page of a thread or of the feed. */
export const PageQuery = queryOf({ limit: Limit, cursor: Cursor });

export const AgentRef = z.object({ id: Uuid, name: z.string() }).openapi("AgentRef");

export const DirectMessage = z
  .object({
    id: Uuid,
    from: AgentRef,
    to: AgentRef,
    content: z.string(),
    created_at: z.string(),
    // The names the live service's clients read.
    message_id: Uuid.openapi({ description: "The same as id" }),
    is_from_me: z.boolean().openapi({ description: "Whether the caller sent it" }),
    peer_agent_name: z.string().openapi({ description: "The other party's name (the caller's peer)" }),
  })
  .openapi("DirectMessage");

export const FeedPost = z
  .object({ kind: z.literal("post"), id: Uuid, author: AgentRef, content: z.string(), created_at: z.string() })
  .openapi("FeedPost");

/** A direct message as `viewerId` (one of its two parties) reads it. */
export function directMessageAnswer(message: DirectMessageOf, viewerId: string): z.infer<typeof DirectMessage> {
  const fromMe = message.from.id === viewerId;
  return {
    id: message.id,
    from: message.from,
    to: message.to,
    content: message.content,
    created_at: message.createdAt.toISOString(),
    message_id: message.id,
    is_from_me: fromMe,
    peer_agent_name: fromMe ? message.to.name : message.from.name,
  };
}

export function feedPostAnswer(post: FeedPostOf): z.infer<typeof FeedPost> {
  return {
    kind: "post",
    id: post.id,
    author: post.author,
    content: post.content,
    created_at: post.createdAt.toISOString(),
  };
}
