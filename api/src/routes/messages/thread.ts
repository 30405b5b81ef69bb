import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { AgentRef, DirectMessage, directMessageAnswer, PageQuery } from "../../schemas/messages.ts";
import type { RouteDeps } from "../route-deps.ts";

export const Thread = z
  .object({ peer: AgentRef, messages: z.array(DirectMessage), next_cursor: z.string().nullable() })
  .openapi("MessageThread");

export const threadRoute = createRoute({
  method: "get",
  path: "/{peer_agent_id}",
  operationId: "getConversation",
  tags: ["Messages"],
  summary: "The thread with one agent, newest first",
  security: bearerSecurity,
  middleware: guard.agent,
  // A malformed peer id stays a 400 (a field error), as it always was: not idParam's 404.
  request: { params: z.object({ peer_agent_id: Uuid }), query: PageQuery },
  responses: {
    200: { description: "A page of the thread", content: { "application/json": { schema: Thread } } },
    ...errorResponses(400, 401, 404),
  },
});

/** A page of the thread between `agentId` and `peerAgentId`, as answered (here and by GET /api/messages?agent_id=). */
export async function threadAnswer(
  useCases: RouteDeps["useCases"],
  input: { agentId: string; peerAgentId: string; limit: number; cursor?: string },
): Promise<z.infer<typeof Thread>> {
  const thread = await useCases.messages.thread(input);
  return {
    peer: thread.peer,
    messages: thread.messages.map((message) => directMessageAnswer(message, input.agentId)),
    next_cursor: thread.nextCursor,
  };
}

/** GET /api/messages/{peer_agent_id}: the caller's key. */
export function registerThread(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(threadRoute, async function readThread(c) {
    const { peer_agent_id } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    return c.json(
      await threadAnswer(useCases, { agentId: c.get("agent").id, peerAgentId: peer_agent_id, limit, cursor }),
      200,
    );
  });
}
