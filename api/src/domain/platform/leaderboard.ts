import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { agentSummary, type DirectoryAgentView } from "../agents/agent-summary.ts";
import { recordOf, recordOn } from "../reads/track-record.ts";
import { successRate } from "../shared/reputation.ts";
import { DAY_SECONDS, marketNow } from "./market-clock.ts";

/*
 * The leaderboard: agents ranked by what they did in a period (the last 7 or 30 days, or all time),
 * from their transactions' indexed escrows settled in it, counted as the reputation counts them
 * (agent-records.ts: an escrow counts only as some transaction's, for its buyer and seller agents).
 * `earned` is what the agent received as seller (released payouts and its share of rulings, after
 * the fee: the record's `earned`); `completed` its sales released or ruled; `success_rate` the
 * reputation's rate (released or ruled over those plus refunds, in either role) over the period.
 * An agent with no escrow settled in the period, in either role, is not on it. All time reads the
 * kept records; a period the kept transactions' escrows settled in it (both follow the indexer
 * within one notifier interval).
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
  successRate: number;
}

/** The sort's order: its figure, highest first, ties to the smaller agent id. */
function orderOf(sort: LeaderboardSort): SQL {
  const rate = sql`coalesce(board.settled_ok::float8 / nullif(board.settled_ok + board.refunded, 0), 0)`;
  const figure = { earned: sql`board.earned`, completed: sql`board.completed`, success_rate: rate }[sort];
  return sql`${figure} DESC, ${agents.id} ASC`;
}

/**
 * Per agent: earned, completed (sales), settled_ok (released or ruled, either role) and refunded
 * (either role), for its transactions' escrows settled since `since` (unix seconds), from
 * app.transaction_escrows by day.
 */
function settledSince(since: number): SQL {
  const settled = sql`status IN ('RELEASED', 'RESOLVED', 'REFUNDED') AND settled_at >= ${since}`;
  return sql`
    SELECT agent_id, sum(earned) AS earned, sum(completed) AS completed,
      sum(settled_ok) AS settled_ok, sum(refunded) AS refunded
    FROM (
      -- Each settled escrow counts once per role the agent held in its transaction, as the
      -- reputation counts it.
      SELECT seller_agent_id AS agent_id,
        CASE WHEN status = 'REFUNDED' THEN 0 ELSE seller_payout END AS earned,
        CASE WHEN status = 'REFUNDED' THEN 0 ELSE 1 END AS completed,
        CASE WHEN status = 'REFUNDED' THEN 0 ELSE 1 END AS settled_ok,
        CASE WHEN status = 'REFUNDED' THEN 1 ELSE 0 END AS refunded
      FROM app.transaction_escrows WHERE ${settled} AND seller_agent_id IS NOT NULL
      UNION ALL
      SELECT buyer_agent_id, 0, 0,
        CASE WHEN status = 'REFUNDED' THEN 0 ELSE 1 END,
        CASE WHEN status = 'REFUNDED' THEN 1 ELSE 0 END
      FROM app.transaction_escrows WHERE ${settled}
    ) roles
    GROUP BY agent_id`;
}

/** The same figures for all time, from the kept records (one row per agent, not one per escrow). */
const settledEver: SQL = sql`
  SELECT agent_id, earned, completed, settled_ok, refunded
  FROM (
    SELECT agent_id, earned,
      released_as_seller + resolved_as_seller AS completed,
      released_as_buyer + released_as_seller + resolved_as_buyer + resolved_as_seller AS settled_ok,
      refunded_as_buyer + refunded_as_seller AS refunded
    FROM app.agent_records
  ) totals
  WHERE settled_ok + refunded > 0`;

async function leaderboard(db: Database, chainId: number, query: LeaderboardQuery): Promise<LeaderboardEntry[]> {
  const days = PERIOD_DAYS[query.period];
  const figures = days === undefined ? settledEver : settledSince((await marketNow(db, chainId)) - days * DAY_SECONDS);
  const rows = await db
    .select({
      agent: agents,
      record: agentRecords,
      earned: sql<string>`board.earned::text`,
      completed: sql<number>`board.completed::int`,
      settledOk: sql<number>`board.settled_ok::int`,
      refunded: sql<number>`board.refunded::int`,
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
    successRate: successRate({ completed: row.settledOk, refunded: row.refunded, disputed: 0, volumeWei: 0n }),
  }));
}

export function leaderboardUseCases(deps: Pick<Deps, "db" | "chain">) {
  return {
    /** The top `limit` agents of the period by the sort's figure (ties: the smaller agent id first). */
    board: (query: LeaderboardQuery) => leaderboard(deps.db, deps.chain.chainId, query),
  };
}
