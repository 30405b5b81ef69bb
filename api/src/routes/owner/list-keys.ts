import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { errorResponses } from "../../schemas/common.ts";
import { ApiKeyListed, apiKeyAnswer, sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

export const listKeysRoute = createRoute({
  method: "get",
  path: "/agents/{id}/keys",
  operationId: "listAgentKeys",
  tags: ["Owners"],
  summary: "The API keys of an agent the session owns",
  description: "Newest first, live and revoked; each by its first 8 hex characters (the key itself is never stored).",
  security: sessionSecurity,
  middleware: guard.owner,
  request: { params: idParam("Agent") },
  responses: {
    200: {
      description: "The agent's keys",
      content: { "application/json": { schema: z.object({ keys: z.array(ApiKeyListed) }) } },
    },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** GET /api/owner/agents/{id}/keys: the session of the agent's owner. */
export function registerListKeys(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(listKeysRoute, async function listKeys(c) {
    const { id } = c.req.valid("param");
    const keys = await useCases.owners.keysOf(c.get("session").address, id);
    return c.json({ keys: keys.map(apiKeyAnswer) }, 200);
  });
}
