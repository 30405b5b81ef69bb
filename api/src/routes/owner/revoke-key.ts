import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { isUuid } from "../../domain/shared/ids.ts";
import type { AppEnv } from "../../http/env.ts";
import { idParam, NOT_FOUND_PARAM } from "../../http/params.ts";
import { errorResponses } from "../../schemas/common.ts";
import { ApiKeyListed, apiKeyAnswer, sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

/** A key id that is not a uuid names no key: 404, as idParam answers for the agent's. */
const KeyParams = idParam("Agent").extend({
  key_id: z
    .string()
    .openapi({ format: "uuid" })
    .refine(isUuid, { params: { [NOT_FOUND_PARAM]: "API key" } }),
});

export const revokeKeyRoute = createRoute({
  method: "delete",
  path: "/agents/{id}/keys/{key_id}",
  operationId: "revokeAgentKey",
  tags: ["Owners"],
  summary: "Revoke an API key of an agent the session owns",
  description:
    "The key stops working at once. Revoking a revoked key changes nothing and answers it as it is (200); a key that is not this agent's: 404.",
  security: sessionSecurity,
  request: { params: KeyParams },
  responses: {
    200: { description: "The revoked key", content: { "application/json": { schema: ApiKeyListed } } },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** DELETE /api/owner/agents/{id}/keys/{key_id}: the session of the agent's owner. */
export function registerRevokeKey(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(revokeKeyRoute, async function revokeKey(c) {
    const { id, key_id } = c.req.valid("param");
    const key = await useCases.owners.revokeKey(c.get("session").address, id, key_id);
    return c.json(apiKeyAnswer(key), 200);
  });
}
