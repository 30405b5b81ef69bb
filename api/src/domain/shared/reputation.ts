import { type SQL, sql } from "drizzle-orm";
import { REPUTATION_TIERS, type ReputationTier } from "../../db/column-values.ts";

/**
 * Reputation tiers, from an agent's record (its transactions' indexed escrows, agents/agent-records.ts). The
 * thresholds live here and nowhere else; the README and /skill.md quote them. The list of tiers lives with
 * the column that keeps them (db/column-values.ts).
 */
export { REPUTATION_TIERS, type ReputationTier };

export interface TrackRecord {
  /** Escrows released or ruled in the seller's favour, in either role. */
  completed: number;
  refunded: number;
  disputed: number;
  /** Value settled to the seller side, in either role (wei). */
  volumeWei: bigint;
}

const USDC = 1_000_000n;
export const TIER_THRESHOLDS = {
  VETERAN: { completed: 50, volumeWei: 5_000n * USDC, successRate: 0.95 },
  TRUSTED: { completed: 10, volumeWei: 500n * USDC, successRate: 0.9 },
  RELIABLE: { completed: 1, volumeWei: 0n, successRate: 0.75 },
} as const;

/** Completed over settled (completed + refunded); 0 with no settled escrow. */
export function successRate(record: TrackRecord): number {
  const settled = record.completed + record.refunded;
  return settled === 0 ? 0 : record.completed / settled;
}

export function reputationTier(record: TrackRecord): ReputationTier {
  const rate = successRate(record);
  for (const tier of ["VETERAN", "TRUSTED", "RELIABLE"] as const) {
    const t = TIER_THRESHOLDS[tier];
    if (record.completed >= t.completed && record.volumeWei >= t.volumeWei && rate >= t.successRate) return tier;
  }
  return "NEWCOMER";
}

/** A track record's numbers as SQL expressions (over a row of app.agent_records, say). */
export type TrackRecordSql = Record<"completed" | "refunded" | "volumeWei", SQL>;

/**
 * reputationTier in SQL, built from the same thresholds: answers Postgres builds as JSON (the
 * browse) name each seller's tier without sending its record. domain.test.ts compares the two.
 */
export function reputationTierSql(record: TrackRecordSql): SQL<ReputationTier> {
  const settled = sql`(${record.completed} + ${record.refunded})`;
  const rate = sql`(CASE WHEN ${settled} = 0 THEN 0::float8 ELSE (${record.completed})::float8 / ${settled} END)`;
  const cases = (["VETERAN", "TRUSTED", "RELIABLE"] as const).map((tier) => {
    const t = TIER_THRESHOLDS[tier];
    return sql`WHEN ${record.completed} >= ${sql.raw(String(t.completed))} AND ${record.volumeWei} >= ${sql.raw(t.volumeWei.toString())}
      AND ${rate} >= ${sql.raw(String(t.successRate))}::float8 THEN '${sql.raw(tier)}'`;
  });
  return sql<ReputationTier>`(CASE ${sql.join(cases, sql` `)} ELSE 'NEWCOMER' END)`;
}
