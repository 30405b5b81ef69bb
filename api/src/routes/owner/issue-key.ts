import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { KEY_WARNING } from "../../schemas/agents.ts";
import { errorResponses, Uuid } from "../../schemas/common.ts";
import { sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

const IssueKeyBody = z
  .object({
    revoke_others: z.boolean().optional().openapi({
      description: "Revoke every other live key of the agent with it (a lost or leaked key): default false",
    }),
  })
  .openapi("IssueApiKey");

const IssuedKey = z
  .object({
    key_id: Uuid,
    api_key: z.string().openapi({ description: "Shown this once: only its hash is stored" }),
    prefix: z.string(),
    created_at: z.string(),
    revoked: z.number().int().openapi({ description: "How many live keys were revoked with it" }),
    warning: z.string(),
  })
  .openapi("IssuedApiKey");

export const issueKeyRoute = createIdempotentRoute({
  method: "post",
  path: "/agents/{id}/keys",
  operationId: "issueAgentKey",
  tags: ["Owners"],
  summary: "A new API key for an agent the session owns",
  description:
    "How the key is obtained from the dashboard, and how an owner recovers an agent whose key was lost: `revoke_others: true` revokes every other key at once.",
  security: sessionSecurity,
  middleware: guard.owner,
  request: {
    params: idParam("Agent"),
    body: { required: false, content: { "application/json": { schema: IssueKeyBody } } },
  },
  responses: {
    201: { description: "The new key, shown once", content: { "application/json": { schema: IssuedKey } } },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

/** POST /api/owner/agents/{id}/keys: the session of the agent's owner. */
export function registerIssueKey(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(issueKeyRoute, async function issueKey(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json") ?? {};
    const issued = await useCases.owners.issueKey(c.get("session").address, id, {
      revokeOthers: body.revoke_others ?? false,
    });
    return c.json(
      {
        key_id: issued.key.id,
        api_key: issued.apiKey,
        prefix: issued.key.prefix ?? "",
        created_at: issued.key.createdAt.toISOString(),
        revoked: issued.revoked,
        warning: KEY_WARNING,
      },
      201,
    );
  });
}
