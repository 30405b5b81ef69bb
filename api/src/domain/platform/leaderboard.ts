import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { agentSummary, type DirectoryAgentView } from "../agents/agent-summary.ts";
import { completedSql, ratedSql, recordOf, recordOn, successesSql } from "../reads/track-record.ts";
import { DAY_SECONDS, marketNow } from "./market-clock.ts";

/*
 * The leaderboard: agents ranked by what they did in a period (the last 7 or 30 days, or all time),
 * from their transactions' indexed escrows, counted as the reputation counts them
 * (agent-records.ts: an escrow counts only as some transaction's, for its buyer and seller agents)
 * and rated under the one rule of shared/reputation.ts. `earned` is what the agent received as
 * seller (released payouts and its share of rulings, after the fee: the record's `earned`);
 * `completed` its escrows released or ruled, as buyer or seller (the reputation's
 * `completed_transactions`); `success_rate` the reputation's rate, over the period's rated deals:
 * the escrows that ended in it, and those funded in it that are in dispute now. An agent with no rated deal in the
 * period is not on it, so every rate on the board is defined. All time reads the kept records (the
 * very figures of the agent's reputation); a period the kept transactions' escrows (both follow
 * the indexer within one notifier interval).
 */

export const LEADERBOARD_PERIODS = ["week", "month", "all"] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
export const LEADERBOARD_SORTS = ["earned", "completed", "success_rate"] as const;
export type LeaderboardSort = (typeof LEADERBOARD_SORTS)[number];

const PERIOD_DAYS: Record<LeaderboardPeriod, number | undefined> = { week: 7, month: 30, all: undefined };

export interface LeaderboardQuery {
  period: LeaderboardPeriod;
  sort: LeaderboardSort;
  limit: number;
}

export interface LeaderboardEntry {
  rank: number;
  agent: DirectoryAgentView & { hosted: boolean };
  earnedWei: bigint;
  completed: number;
  /** Successes over ratedDeals (never 0 on the board). */
  successRate: number;
  ratedDeals: number;
}

/** The sort's order: its figure, highest first, ties to the smaller agent id. */
function orderOf(sort: LeaderboardSort): SQL {
  const rate = sql`(board.successes::float8 / board.rated)`;
  const figure = { earned: sql`board.earned`, completed: sql`board.completed`, success_rate: rate }[sort];
  return sql`${figure} DESC, ${agents.id} ASC`;
}

/**
 * Per agent: earned (as seller), completed, successes and rated deals (either role) over its
 * transactions' escrows that ended since `since` (unix seconds) or, funded since, are in dispute now, from
 * app.transaction_escrows. Keep it in step with reputation.ts' rule and recordOf.
 */
function ratedSince(since: number): SQL {
  const rated = sql`(status IN ('RELEASED', 'RESOLVED', 'REFUNDED') AND settled_at >= ${since})
    OR (status = 'DISPUTED' AND funded_at >= ${since})`;
  const figures = (earned: SQL) => sql`${earned} AS earned,
        CASE WHEN status IN ('RELEASED', 'RESOLVED') THEN 1 ELSE 0 END AS completed,
        CASE WHEN status = 'RELEASED' AND NOT disputed THEN 1 ELSE 0 END AS successes`;
  return sql`
    SELECT agent_id, sum(earned) AS earned, sum(completed) AS completed, sum(successes) AS successes,
      count(*) AS rated
    FROM (
      -- Each rated escrow counts once per role the agent held in its transaction, as the
      -- reputation counts it.
      SELECT seller_agent_id AS agent_id,
        ${figures(sql`CASE WHEN status IN ('RELEASED', 'RESOLVED') THEN seller_payout ELSE 0 END`)}
      FROM app.transaction_escrows WHERE (${rated}) AND seller_agent_id IS NOT NULL
      UNION ALL
      SELECT buyer_agent_id, ${figures(sql`0`)}
      FROM app.transaction_escrows WHERE ${rated}
    ) roles
    GROUP BY agent_id`;
}

/** The same figures for all time, from the kept records (one row per agent, not one per escrow). */
const ratedEver: SQL = sql`
  SELECT agent_id, earned, completed, successes, rated
  FROM (
    SELECT ${agentRecords.agentId} AS agent_id, ${agentRecords.earned} AS earned, ${completedSql} AS completed,
      ${successesSql} AS successes, ${ratedSql} AS rated
    FROM ${agentRecords}
  ) totals
  WHERE rated > 0`;

async function leaderboard(db: Database, chainId: number, query: LeaderboardQuery): Promise<LeaderboardEntry[]> {
  const days = PERIOD_DAYS[query.period];
  const figures = days === undefined ? ratedEver : ratedSince((await marketNow(db, chainId)) - days * DAY_SECONDS);
  const rows = await db
    .select({
      agent: agents,
      record: agentRecords,
      earned: sql<string>`board.earned::text`,
      completed: sql<number>`board.completed::int`,
      successes: sql<number>`board.successes::int`,
      rated: sql<number>`board.rated::int`,
    })
    .from(sql`(${figures}) AS board`)
    .innerJoin(agents, sql`${agents.id} = board.agent_id AND ${agents.isActive}`)
    .leftJoin(agentRecords, recordOn)
    .orderBy(orderOf(query.sort))
    .limit(query.limit);
  return rows.map((row, index) => ({
    rank: index + 1,
    agent: { ...agentSummary(row.agent, recordOf(row.record)), hosted: row.agent.hosted },
    earnedWei: BigInt(row.earned),
    completed: row.completed,
    successRate: row.successes / row.rated,
    ratedDeals: row.rated,
  }));
}

export function leaderboardUseCases(deps: Pick<Deps, "db" | "chain">) {
  return {
    /** The top `limit` agents of the period by the sort's figure (ties: the smaller agent id first). */
    board: (query: LeaderboardQuery) => leaderboard(deps.db, deps.chain.chainId, query),
  };
}
