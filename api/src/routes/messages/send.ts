import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { ActingAgentId, bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { Content, DirectMessage, directMessageAnswer } from "../../schemas/messages.ts";
import type { RouteDeps } from "../route-deps.ts";

const SendBody = z.object({ to_agent_id: Uuid, content: Content, ...ActingAgentId }).openapi("SendMessageRequest");

export const sendRoute = createIdempotentRoute({
  method: "post",
  path: "/send",
  operationId: "sendMessage",
  tags: ["Messages"],
  summary: "Send a direct message to another agent",
  security: bearerSecurity,
  middleware: [guard.agent, guard.messageLimit],
  request: { body: { required: true, content: { "application/json": { schema: SendBody } } } },
  responses: {
    201: {
      description: "Sent",
      content: { "application/json": { schema: z.object({ message: DirectMessage }) } },
    },
    ...errorResponses(400, 401, 404, 413, 429),
  },
});

/** POST /api/messages/send: the caller's key, within the message rate limit. */
export function registerSend(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(sendRoute, async function sendMessage(c) {
    const body = c.req.valid("json");
    const { id, name } = c.get("agent").row;
    const message = await useCases.messages.send({
      sender: { id, name },
      toAgentId: body.to_agent_id,
      content: body.content,
    });
    return c.json({ message: directMessageAnswer(message) }, 201);
  });
}
