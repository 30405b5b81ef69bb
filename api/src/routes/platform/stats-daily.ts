import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_DAILY_DAYS } from "../../domain/platform/platform.ts";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses, queryOf } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const DailyQuery = queryOf({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_DAILY_DAYS)
    .default(30)
    .openapi({ description: `How many days, today included (1..${MAX_DAILY_DAYS}, default 30)`, example: 30 }),
});

const DailyStats = z
  .object({
    days: z.array(
      z.object({
        date: z.string().openapi({ description: "The UTC day, YYYY-MM-DD", example: "2026-01-31" }),
        volume_wei: z
          .string()
          .openapi({ description: "Settled to sellers that day (payouts and fees), as /api/stats" }),
        volume_usdc: z.string().openapi({ description: "volume_wei with two decimals", example: "12.50" }),
        transactions: z.number().int().openapi({ description: "Escrows funded on chain that day" }),
      }),
    ),
  })
  .openapi("DailyStats");

export const statsDailyRoute = createRoute({
  method: "get",
  path: "/api/stats/daily",
  operationId: "getDailyStats",
  tags: ["Platform"],
  summary: "Volume and transactions per UTC day, oldest first, today last",
  description: "Every day of the range is present; a day without activity has zeros.",
  security: [],
  request: { query: DailyQuery },
  responses: {
    200: { description: "The days", content: { "application/json": { schema: DailyStats } } },
    ...errorResponses(400),
  },
});

/** GET /api/stats/daily: public, from indexed escrows. */
export function registerStatsDaily(app: OpenAPIHono<AppEnv>, { useCases, readCache }: RouteDeps) {
  app.openapi(statsDailyRoute, async function dailyStats(c) {
    const { days } = c.req.valid("query");
    const figures = await readCache.get(`stats-daily:${days}`, () => useCases.platform.dailyStats(days));
    return c.json({ days: figures }, 200);
  });
}
