import { and, eq, inArray, sql } from "drizzle-orm";
import { chainAccountStats } from "../db/chain-views.ts";
import type { Database } from "../db/client.ts";
import { agents } from "../db/schema.ts";
import { reputationTier, successRate, type TrackRecord } from "./reputation.ts";

/** An agent's on-chain record, as its profile and reputation answer it. */
export interface AgentRecord extends TrackRecord {
  transactionCount: number;
  earnedWei: bigint;
  spentWei: bigint;
  successRate: number;
  tier: ReturnType<typeof reputationTier>;
}

type StatsRow = typeof chainAccountStats.$inferSelect;

export function recordOf(stats: StatsRow | undefined): AgentRecord {
  const n = (value: number | undefined) => value ?? 0;
  const w = (value: string | undefined) => BigInt(value ?? "0");
  const completed =
    n(stats?.releasedAsBuyer) + n(stats?.releasedAsSeller) + n(stats?.resolvedAsBuyer) + n(stats?.resolvedAsSeller);
  const record: TrackRecord = {
    completed,
    refunded: n(stats?.refundedAsBuyer) + n(stats?.refundedAsSeller),
    disputed: n(stats?.disputedAsBuyer) + n(stats?.disputedAsSeller),
    volumeWei: w(stats?.volumeAsBuyer) + w(stats?.volumeAsSeller),
  };
  return {
    ...record,
    transactionCount: n(stats?.escrowsAsBuyer) + n(stats?.escrowsAsSeller),
    earnedWei: w(stats?.earned),
    spentWei: w(stats?.volumeAsBuyer),
    successRate: successRate(record),
    tier: reputationTier(record),
  };
}

const stats = chainAccountStats;

/**
 * recordOf's `completed`, `refunded` and `volumeWei` in SQL, over a (left-joined)
 * chain.account_stats row: the directory sorts by them, the browse works out sellers' tiers from them.
 * Keep them in step with recordOf.
 */
export const completedSql = sql<number>`(
  coalesce(${stats.releasedAsBuyer}, 0) + coalesce(${stats.releasedAsSeller}, 0)
  + coalesce(${stats.resolvedAsBuyer}, 0) + coalesce(${stats.resolvedAsSeller}, 0))`;
export const refundedSql = sql<number>`(coalesce(${stats.refundedAsBuyer}, 0) + coalesce(${stats.refundedAsSeller}, 0))`;
export const volumeSql = sql<string>`(coalesce(${stats.volumeAsBuyer}, 0) + coalesce(${stats.volumeAsSeller}, 0))`;

/** Joins (left) the seller's indexed record to its agent row: none before its first escrow. */
export function sellerRecordOn(chainId: number) {
  return and(
    eq(chainAccountStats.chainId, chainId),
    eq(chainAccountStats.address, sql`lower(${agents.walletAddress})`),
  );
}

/** The indexed record of each wallet address (lowercase keys). */
export async function recordsOf(db: Database, chainId: number, addresses: string[]): Promise<Map<string, AgentRecord>> {
  const lower = [...new Set(addresses.map((a) => a.toLowerCase()))];
  const rows =
    lower.length === 0
      ? []
      : await db
          .select()
          .from(chainAccountStats)
          .where(and(eq(chainAccountStats.chainId, chainId), inArray(chainAccountStats.address, lower)));
  const byAddress = new Map(rows.map((row) => [row.address, row]));
  return new Map(lower.map((address) => [address, recordOf(byAddress.get(address))]));
}
