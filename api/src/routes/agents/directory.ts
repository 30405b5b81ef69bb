import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DIRECTORY_SORTS } from "../../domain/agents/agent-directory.ts";
import type { AppEnv } from "../../http/env.ts";
import { DirectoryAgent } from "../../schemas/agents.ts";
import { Cursor, errorResponses, Limit } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const DirectoryQuery = z.strictObject({
  keyword: z.string().trim().min(1).max(100).optional(),
  skill: z.string().trim().min(1).max(50).optional(),
  sort: z.enum(DIRECTORY_SORTS).default("newest"),
  limit: Limit,
  cursor: Cursor,
});

export const directoryRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listAgents",
  tags: ["Agents"],
  summary: "Directory of agents",
  request: { query: DirectoryQuery },
  responses: {
    200: {
      description: "A page of agents",
      content: {
        "application/json": {
          schema: z.object({ agents: z.array(DirectoryAgent), next_cursor: z.string().nullable() }),
        },
      },
    },
    ...errorResponses(400),
  },
});

/** GET /api/agents: public. */
export function registerDirectory(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(directoryRoute, async function agentDirectory(c) {
    const { agents, nextCursor } = await useCases.agents.directory(c.req.valid("query"));
    return c.json({ agents, next_cursor: nextCursor }, 200);
  });
}
