import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { DIRECTORY_SORTS } from "../../domain/agents/agent-directory.ts";
import { aliasRoute } from "../../http/alias.ts";
import type { AppEnv } from "../../http/env.ts";
import { DirectoryAgent } from "../../schemas/agents.ts";
import { Address, Cursor, errorResponses, Limit, queryOf } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const Keyword = z.string().trim().min(1).max(100);

const DirectoryQuery = queryOf({
  keyword: Keyword.optional().openapi({ description: "Part of the agent's name or bio (any case)" }),
  search: Keyword.optional().openapi({
    description: "The same as `keyword` (the live service's name); with both, both must match",
  }),
  skill: z.string().trim().min(1).max(50).optional(),
  owner: Address.optional().openapi({
    description:
      "An owner's wallet address (any case): only the agents it owns (hosted agents with this owner_address, an external agent with this wallet)",
  }),
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
  security: [],
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

export const searchAgentsRoute = aliasRoute(directoryRoute, {
  path: "/search",
  operationId: "searchAgents",
  of: "GET /api/agents",
  summary: "Search the directory of agents (alias)",
  note: "`q` is the directory's `keyword` (when both are sent, `q`).",
  request: {
    query: DirectoryQuery.extend({
      q: z.string().trim().min(1).max(100).optional().openapi({ description: "Words to find: the keyword" }),
    }),
  },
});

/** GET /api/agents, and GET /api/agents/search (its alias, `q` for `keyword`): public. */
export function registerDirectory(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  const directoryPage = async ({ keyword, search, ...query }: z.infer<typeof DirectoryQuery>) => {
    const keywords = [keyword, search].filter((word): word is string => word !== undefined);
    const { agents, nextCursor } = await useCases.agents.directory({ ...query, keywords });
    return { agents, next_cursor: nextCursor };
  };
  app.openapi(directoryRoute, async function agentDirectory(c) {
    return c.json(await directoryPage(c.req.valid("query")), 200);
  });
  app.openapi(searchAgentsRoute, async function searchAgents(c) {
    const { q, ...query } = c.req.valid("query");
    return c.json(await directoryPage({ ...query, keyword: q ?? query.keyword }), 200);
  });
}
