import { and, eq, sql } from "drizzle-orm";
import { chainAccountStats } from "../../db/chain-views.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import { ratedDeals, reputationTier, successRate, type TrackRecord } from "../shared/reputation.ts";

/*
 * An agent's record as the API answers it, from its kept figures (app.agent_records: its
 * transactions' escrows only, see agent-records.ts), in TypeScript and as SQL over a joined row.
 */

/** An agent's on-chain record, as its profile and reputation answer it. */
export interface AgentRecord extends TrackRecord {
  /** Its transactions' escrows, as buyer and as seller, whatever their state: what `transaction_count` shows. */
  transactionCount: number;
  /** What it received as seller (after the fee). */
  earnedWei: bigint;
  spentWei: bigint;
  ratedDeals: number;
  /** Undefined without a rated deal (shared/reputation.ts). */
  successRate: number | undefined;
  tier: ReturnType<typeof reputationTier>;
}

/** A record's figures: app.agent_records' columns (wei as text, as Postgres gives numeric). */
export type RecordFigures = Omit<typeof agentRecords.$inferSelect, "agentId" | "lastEvent">;

/** The record of kept figures; all zeros without any (an agent with no transaction's escrow yet). */
export function recordOf(figures: RecordFigures | undefined | null): AgentRecord {
  const n = (value: number | undefined) => value ?? 0;
  const w = (value: string | undefined) => BigInt(value ?? "0");
  const f = figures ?? undefined;
  const completed = n(f?.releasedAsBuyer) + n(f?.releasedAsSeller) + n(f?.resolvedAsBuyer) + n(f?.resolvedAsSeller);
  const record: TrackRecord = {
    completed,
    refunded: n(f?.refundedAsBuyer) + n(f?.refundedAsSeller),
    disputed: n(f?.disputedAsBuyer) + n(f?.disputedAsSeller),
    successes: n(f?.releasedUndisputedAsBuyer) + n(f?.releasedUndisputedAsSeller),
    inDispute: n(f?.inDisputeAsBuyer) + n(f?.inDisputeAsSeller),
    volumeWei: w(f?.volumeAsBuyer) + w(f?.volumeAsSeller),
  };
  return {
    ...record,
    transactionCount: n(f?.escrowsAsBuyer) + n(f?.escrowsAsSeller),
    earnedWei: w(f?.earned),
    spentWei: w(f?.volumeAsBuyer),
    ratedDeals: ratedDeals(record),
    successRate: successRate(record),
    tier: reputationTier(record),
  };
}

const kept = agentRecords;

/**
 * recordOf's `completed`, `refunded`, rated deals, successes and `volumeWei` in SQL, over a
 * (left-joined) app.agent_records row: the directory sorts by them, the kept tiers and success
 * rates are worked out from them. Keep them in step with recordOf.
 */
export const completedSql = sql<number>`(
  coalesce(${kept.releasedAsBuyer}, 0) + coalesce(${kept.releasedAsSeller}, 0)
  + coalesce(${kept.resolvedAsBuyer}, 0) + coalesce(${kept.resolvedAsSeller}, 0))`;
export const refundedSql = sql<number>`(coalesce(${kept.refundedAsBuyer}, 0) + coalesce(${kept.refundedAsSeller}, 0))`;
export const successesSql = sql<number>`(
  coalesce(${kept.releasedUndisputedAsBuyer}, 0) + coalesce(${kept.releasedUndisputedAsSeller}, 0))`;
export const ratedSql = sql<number>`(${completedSql} + ${refundedSql}
  + coalesce(${kept.inDisputeAsBuyer}, 0) + coalesce(${kept.inDisputeAsSeller}, 0))`;
export const volumeSql = sql<string>`(coalesce(${kept.volumeAsBuyer}, 0) + coalesce(${kept.volumeAsSeller}, 0))`;

/** Joins (left) an agent row's kept record: none before its first transaction's escrow is counted. */
export const recordOn = eq(agentRecords.agentId, agents.id);

/** Joins (left) the indexer's row of an agent's wallet: its last_event tells whether the kept record is current. */
export function walletStatsOn(chainId: number) {
  return and(
    eq(chainAccountStats.chainId, chainId),
    eq(chainAccountStats.address, sql`lower(${agents.walletAddress})`),
  );
}

/**
 * Whether the kept record (joined with recordOn) was counted as of the wallet's newest escrow event
 * (joined with walletStatsOn). No kept record is current while the wallet has no escrow at all.
 */
export const recordIsCurrent = sql<boolean>`(${agentRecords.lastEvent} IS NOT DISTINCT FROM ${chainAccountStats.lastEvent})`;
