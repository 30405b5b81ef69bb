import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const Health = z
  .object({
    status: z.enum(["ok", "degraded", "down"]),
    database: z.object({ ok: z.boolean() }),
    chain: z.object({ ok: z.boolean(), chain_id: z.number().int(), head_block: z.string().nullable() }),
    indexer: z.object({ ok: z.boolean(), indexed_block: z.string().nullable(), lag_blocks: z.string().nullable() }),
  })
  .openapi("Health");

export const healthRoute = createRoute({
  method: "get",
  path: "/api/health",
  operationId: "getHealth",
  tags: ["Platform"],
  summary: "Database, chain head and indexer lag",
  security: [],
  responses: {
    200: { description: "Every part answers", content: { "application/json": { schema: Health } } },
    503: { description: "A part is down", content: { "application/json": { schema: Health } } },
    ...errorResponses(),
  },
});

/** GET /api/health: public; 503 when a part is down. */
export function registerHealth(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(healthRoute, async function health(c) {
    const { status, database, chain, indexer } = await useCases.platform.health();
    return c.json(
      {
        status,
        database,
        chain: { ok: chain.ok, chain_id: chain.chainId, head_block: chain.headBlock?.toString() ?? null },
        indexer: {
          ok: indexer.ok,
          indexed_block: indexer.indexedBlock?.toString() ?? null,
          lag_blocks: indexer.lagBlocks?.toString() ?? null,
        },
      },
      status === "down" ? 503 : 200,
    );
  });
}
