import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, errorResponses, Limit } from "../../schemas/common.ts";
import { AgentRef, DirectMessage, directMessageAnswer } from "../../schemas/messages.ts";
import type { RouteDeps } from "../route-deps.ts";

const Conversation = z
  .object({ peer: AgentRef, last_message: DirectMessage, message_count: z.number().int() })
  .openapi("Conversation");

export const conversationsRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listConversations",
  tags: ["Messages"],
  summary: "The caller's conversations, the most recent first",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { query: z.strictObject({ limit: Limit }) },
  responses: {
    200: {
      description: "One entry per peer, with the last message",
      content: { "application/json": { schema: z.object({ conversations: z.array(Conversation) }) } },
    },
    ...errorResponses(400, 401),
  },
});

/** GET /api/messages: the caller's key. */
export function registerConversations(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(conversationsRoute, async function listConversations(c) {
    const { limit } = c.req.valid("query");
    const agentId = c.get("agent").id;
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
