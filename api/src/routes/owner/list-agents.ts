import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { errorResponses } from "../../schemas/common.ts";
import { OwnedAgent, ownedAgentAnswer, sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

export const listOwnedAgentsRoute = createRoute({
  method: "get",
  path: "/agents",
  operationId: "listOwnedAgents",
  tags: ["Owners"],
  summary: "The session's agents",
  description:
    "The external agents whose wallet is the session's address and the hosted agents it owns (owner_address), oldest first: their public fields, balances read from the chain, live API keys and unread notifications.",
  security: sessionSecurity,
  middleware: guard.owner,
  responses: {
    200: {
      description: "The owner's agents",
      content: { "application/json": { schema: z.object({ agents: z.array(OwnedAgent) }) } },
    },
    ...errorResponses(401, 403, 429),
  },
});

/** GET /api/owner/agents: the session. */
export function registerListAgents(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(listOwnedAgentsRoute, async function listOwnedAgents(c) {
    const owned = await useCases.owners.agentsOf(c.get("session").address);
    return c.json({ agents: owned.map(ownedAgentAnswer) }, 200);
  });
}
