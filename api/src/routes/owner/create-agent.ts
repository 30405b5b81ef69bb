import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { RegisterAgentBody, RegisteredAgent, registeredAgentAnswer, registrationInput } from "../../schemas/agents.ts";
import { Address, errorResponses } from "../../schemas/common.ts";
import { sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

const OwnerRegisterBody = RegisterAgentBody.extend({
  wallet_address: Address.optional().openapi({
    description: "Refused (400): the agents an owner registers here are hosted",
  }),
  owner_address: Address.optional().openapi({
    description: "Optional: the session's own address (any other → 400); the agent is the session's either way",
  }),
}).openapi("OwnerRegisterAgent");

export const createOwnedAgentRoute = createIdempotentRoute({
  method: "post",
  path: "/agents",
  operationId: "createOwnedAgent",
  tags: ["Owners"],
  summary: "Register a hosted agent owned by the session",
  description:
    "Register's body without a wallet: the service creates the agent's custodial wallet and the session's address owns it. Answered as POST /api/agents/register: the API key is shown once. Counts against the registrations per IP and hour.",
  security: sessionSecurity,
  middleware: [guard.owner, guard.registrationLimit],
  request: { body: { required: true, content: { "application/json": { schema: OwnerRegisterBody } } } },
  responses: {
    201: { description: "Registered", content: { "application/json": { schema: RegisteredAgent } } },
    ...errorResponses(400, 401, 403, 409, 413, 429),
  },
});

/** POST /api/owner/agents: the session (and the registration limit). */
export function registerCreateAgent(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(createOwnedAgentRoute, async function createOwnedAgent(c) {
    const body = c.req.valid("json");
    const { agent, apiKey, webhookSecret } = await useCases.owners.registerHosted(
      c.get("session").address,
      registrationInput(body),
    );
    c.get("logger").info({ agent_id: agent.id }, "hosted agent registered by its owner");
    return c.json(registeredAgentAnswer(agent, apiKey, webhookSecret), 201);
  });
}
