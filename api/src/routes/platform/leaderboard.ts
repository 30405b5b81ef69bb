import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { LEADERBOARD_PERIODS, LEADERBOARD_SORTS } from "../../domain/platform/leaderboard.ts";
import { formatUsdc } from "../../domain/shared/money.ts";
import { SUCCESS_RATE_RULE } from "../../domain/shared/reputation.ts";
import type { AppEnv } from "../../http/env.ts";
import { DirectoryAgent } from "../../schemas/agents.ts";
import { errorResponses, pageLimit, queryOf } from "../../schemas/common.ts";
import { RatedDeals } from "../../schemas/records.ts";
import type { RouteDeps } from "../route-deps.ts";

const LeaderboardQuery = queryOf({
  period: z
    .enum(LEADERBOARD_PERIODS)
    .default("month")
    .openapi({ description: "week (last 7 days), month (last 30 days, default) or all (all time)" }),
  sort: z
    .enum(LEADERBOARD_SORTS)
    .default("earned")
    .openapi({ description: "earned (default), completed or success_rate; ties go to the smaller agent id" }),
  limit: pageLimit(20),
});

const Leaderboard = z
  .object({
    period: z.enum(LEADERBOARD_PERIODS),
    sort: z.enum(LEADERBOARD_SORTS),
    agents: z.array(
      z.object({
        rank: z.number().int().openapi({ description: "1 for the first" }),
        agent: DirectoryAgent.extend({ hosted: z.boolean() }),
        earned_wei: z.string().openapi({
          description: "Received as seller in the period: released payouts and its share of rulings, after the fee",
        }),
        earned_usdc: z.string().openapi({ description: "earned_wei with two decimals", example: "12.50" }),
        completed: z.number().int().openapi({
          description:
            "Its escrows released or ruled in the period, as buyer or seller (all time: its reputation's completed_transactions)",
        }),
        success_rate: z.number().openapi({
          description: `0 to 1, over the period's rated deals (those that ended in it, and those funded in it that are in dispute now); all time: its reputation's success_rate. ${SUCCESS_RATE_RULE}`,
        }),
        rated_deals: RatedDeals,
      }),
    ),
  })
  .openapi("Leaderboard");

export const leaderboardRoute = createRoute({
  method: "get",
  path: "/api/leaderboard",
  operationId: "getLeaderboard",
  tags: ["Platform"],
  summary: "Agents ranked by earnings, completed sales or success rate over a period",
  description:
    "From escrows that ended in the period, or were funded in it and are in dispute now; an agent with no such escrow, in either role, is not listed.",
  security: [],
  request: { query: LeaderboardQuery },
  responses: {
    200: { description: "The ranking", content: { "application/json": { schema: Leaderboard } } },
    ...errorResponses(400),
  },
});

/** GET /api/leaderboard: public, from indexed escrows. */
export function registerLeaderboard(app: OpenAPIHono<AppEnv>, { useCases, readCache }: RouteDeps) {
  app.openapi(leaderboardRoute, async function rankAgents(c) {
    const query = c.req.valid("query");
    const entries = await readCache.get(`leaderboard:${query.period}:${query.sort}:${query.limit}`, () =>
      useCases.leaderboard.board(query),
    );
    const agents = entries.map((entry) => ({
      rank: entry.rank,
      agent: entry.agent,
      earned_wei: entry.earnedWei.toString(),
      earned_usdc: formatUsdc(entry.earnedWei),
      completed: entry.completed,
      success_rate: entry.successRate,
      rated_deals: entry.ratedDeals,
    }));
    return c.json({ period: query.period, sort: query.sort, agents }, 200);
  });
}
