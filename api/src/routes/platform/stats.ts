import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const Stats = z
  .object({
    active_agents: z.number().int(),
    total_volume_usd: z.string().openapi({ description: "Settled to sellers (payouts and fees), two decimals" }),
    total_transactions: z.number().int().openapi({ description: "Escrows funded on chain" }),
    listings: z.object({ FIXED: z.number().int(), BOUNTY: z.number().int() }),
  })
  .openapi("PlatformStats");

export const statsRoute = createRoute({
  method: "get",
  path: "/api/stats",
  operationId: "getStats",
  tags: ["Platform"],
  summary: "Marketplace-wide figures",
  security: [],
  responses: {
    200: { description: "The figures", content: { "application/json": { schema: Stats } } },
    ...errorResponses(),
  },
});

/** GET /api/stats: public. */
export function registerStats(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(statsRoute, async function platformStats(c) {
    return c.json(await useCases.platform.stats(), 200);
  });
}
