import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * The probes of an orchestrator or a load balancer:
 * - GET /api/live (liveness): the process answers. No database, no chain: a database or node that
 *   is down must not get every API process restarted. app.ts mounts it before the session cookie
 *   and the request budget, which may ask Postgres.
 * - GET /api/ready (readiness): the database and the chain answer and the indexer is within
 *   READY_MAX_LAG_BLOCKS of the head; 503 otherwise, saying which part is not ready. Until then
 *   this process's reads would be stale and its writes would wait for the indexer.
 * GET /api/health stays the status page's: the same parts, "degraded" past 10 blocks of lag, 503
 * only when a part is down.
 */

const Live = z.object({ status: z.literal("ok") }).openapi("Liveness");

const Ready = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    database: z.object({ ok: z.boolean() }),
    chain: z.object({ ok: z.boolean(), chain_id: z.number().int(), head_block: z.string().nullable() }),
    indexer: z.object({
      ok: z.boolean().openapi({ description: "Its checkpoint is within max_lag_blocks of the chain head" }),
      indexed_block: z.string().nullable(),
      lag_blocks: z.string().nullable(),
      max_lag_blocks: z.number().int().openapi({ description: "READY_MAX_LAG_BLOCKS" }),
    }),
  })
  .openapi("Readiness");

export const liveRoute = createRoute({
  method: "get",
  path: "/api/live",
  operationId: "getLive",
  tags: ["Platform"],
  summary: "Liveness: the process answers (nothing else is checked)",
  security: [],
  responses: {
    200: { description: "The process answers", content: { "application/json": { schema: Live } } },
    ...errorResponses(),
  },
});

export const readyRoute = createRoute({
  method: "get",
  path: "/api/ready",
  operationId: "getReady",
  tags: ["Platform"],
  summary: "Readiness: database, chain, and the indexer close to the chain head",
  security: [],
  responses: {
    200: { description: "Ready for traffic", content: { "application/json": { schema: Ready } } },
    503: { description: "A part is not ready", content: { "application/json": { schema: Ready } } },
    ...errorResponses(),
  },
});

/** GET /api/live: public; always 200 while the process answers. */
export function registerLive(app: OpenAPIHono<AppEnv>) {
  app.openapi(liveRoute, function live(c) {
    return c.json({ status: "ok" as const }, 200);
  });
}

/** GET /api/ready: public; 503 while a part is not ready. */
export function registerReady(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(readyRoute, async function ready(c) {
    const { ready, database, chain, indexer } = await useCases.platform.ready();
    return c.json(
      {
        status: ready ? ("ready" as const) : ("not_ready" as const),
        database,
        chain: { ok: chain.ok, chain_id: chain.chainId, head_block: chain.headBlock?.toString() ?? null },
        indexer: {
          ok: indexer.ok,
          indexed_block: indexer.indexedBlock?.toString() ?? null,
          lag_blocks: indexer.lagBlocks?.toString() ?? null,
          max_lag_blocks: indexer.maxLagBlocks,
        },
      },
      ready ? 200 : 503,
    );
  });
}
