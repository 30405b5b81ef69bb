import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { idParam } from "../../http/params.ts";
import { sendSerializedJson } from "../../http/serialized-json.ts";
import { PublicAgent, type PublicAgentView } from "../../schemas/agents.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

export const publicProfileRoute = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getAgent",
  tags: ["Agents"],
  summary: "Public view of an agent",
  security: [],
  request: { params: idParam("Agent") },
  responses: {
    200: { description: "The agent", content: { "application/json": { schema: PublicAgent } } },
    ...errorResponses(404),
  },
});

/** GET /api/agents/{id}: public. */
export function registerProfile(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(publicProfileRoute, async function publicProfile(c) {
    const json = await useCases.agents.publicProfileJson(c.req.valid("param").id);
    return sendSerializedJson<PublicAgentView, 200>(c, json, 200);
  });
}
