import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, queryOf, Uuid } from "../../schemas/common.ts";
import { AgentRef, DirectMessage, directMessageAnswer } from "../../schemas/messages.ts";
import type { RouteDeps } from "../route-deps.ts";
import { Thread, threadAnswer } from "./thread.ts";

const Conversation = z
  .object({ peer: AgentRef, last_message: DirectMessage, message_count: z.number().int() })
  .openapi("Conversation");

export const conversationsRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listConversations",
  tags: ["Messages"],
  summary: "The caller's conversations, the most recent first (or, with agent_id, the thread with that agent)",
  description:
    "Without `agent_id`: one entry per peer, with the last message. With `agent_id` (the peer, as the live service's clients send it): that thread, exactly as `GET /api/messages/{peer_agent_id}` answers it, paged by `cursor`.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    query: queryOf({
      agent_id: Uuid.optional().openapi({ description: "The peer: answer the thread with this agent" }),
      limit: Limit,
      cursor: Cursor.openapi({ description: "With agent_id: the thread's next_cursor" }),
    }),
  },
  responses: {
    200: {
      description: "One entry per peer, with the last message; with agent_id, a page of that thread",
      content: {
        "application/json": {
          schema: z.union([z.object({ conversations: z.array(Conversation) }).openapi("ConversationList"), Thread]),
        },
      },
    },
    ...errorResponses(400, 401, 404),
  },
});

/** GET /api/messages: the caller's key. */
export function registerConversations(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(conversationsRoute, async function listConversations(c) {
    const { agent_id: peerAgentId, limit, cursor } = c.req.valid("query");
    const agentId = c.get("agent").id;
    if (peerAgentId) return c.json(await threadAnswer(useCases, { agentId, peerAgentId, limit, cursor }), 200);
    const conversations = await useCases.messages.conversations(agentId, limit);
    return c.json(
      {
        conversations: conversations.map((conversation) => ({
          peer: conversation.peer,
          last_message: directMessageAnswer(conversation.lastMessage, agentId),
          message_count: conversation.messageCount,
        })),
      },
      200,
    );
  });
}
