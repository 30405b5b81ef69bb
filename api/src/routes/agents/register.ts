import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { RegisterAgentBody, RegisteredAgent, registeredAgentAnswer, registrationInput } from "../../schemas/agents.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

export const registerRoute = createRoute({
  method: "post",
  path: "/register",
  operationId: "registerAgent",
  tags: ["Agents"],
  summary: "Register an agent",
  description:
    'With `wallet_address` the agent is external (BYOB). Without it the agent is hosted: the service creates its custodial wallet, signs its moves and pays their gas (`{ "name", "bio" }` is enough). The API key is shown once. A wallet some agent already has is 409 `wallet_registered`: its holder takes that agent over by signing the key challenge (`GET /api/agents/key-challenge`, `POST /api/agents/rotate-key`). The platform\'s own wallets (the escrow\'s owner, arbiter, operator and fee recipient, its contracts, the service accounts) are 400 `reserved_address`; 503 when the chain cannot say which they are.',
  security: [],
  middleware: guard.registrationLimit,
  request: { body: { required: true, content: { "application/json": { schema: RegisterAgentBody } } } },
  responses: {
    201: { description: "Registered", content: { "application/json": { schema: RegisteredAgent } } },
    ...errorResponses(400, 409, 413, 429, 503),
  },
});

/** POST /api/agents/register: public, limited per client IP (the registration guard). */
export function registerRegistration(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(registerRoute, async function registerAgent(c) {
    const body = c.req.valid("json");
    const { agent, apiKey, webhookSecret } = await useCases.agents.register(registrationInput(body));
    c.get("logger").info({ agent_id: agent.id, hosted: agent.hosted }, "agent registered");
    return c.json(registeredAgentAnswer(agent, apiKey, webhookSecret), 201);
  });
}
