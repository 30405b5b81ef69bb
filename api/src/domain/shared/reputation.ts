import { type SQL, sql } from "drizzle-orm";
import { REPUTATION_TIERS, type ReputationTier } from "../../db/column-values.ts";

/*
 * The reputation rule, in one place: every answer that shows a success rate or a tier (the
 * reputation and its on-chain verification, the own profile, a listing's seller, browse cards, the
 * directory, the leaderboard, the dispute desk) works it out here, from an agent's record (its
 * transactions' indexed escrows, agents/agent-records.ts, in each role it held: buyer and seller).
 *
 * - A **rated deal** is an escrow that ended (released, ruled or refunded) or is in dispute now.
 *   An escrow still funded or delivered is not rated yet.
 * - A **success** is an escrow released without ever being disputed.
 * - Every other rated deal counts against the rate: a refund (before delivery, or by the seller),
 *   a ruling (a ruling follows a dispute, whatever its split), a dispute still open, and a release
 *   that came after a dispute.
 * - **success rate** = successes / rated deals; it is undefined while there is no rated deal. The
 *   answers keep their documented number types and say "undefined" with `rated_deals: 0` beside
 *   the rate (which is then 0): a client shows no rate while `rated_deals` is 0.
 * - As an integer percentage (a listing's `seller_reputation.success_rate`, browse cards):
 *   rounded down, successes × 100 / rated deals.
 * - **completed** = escrows released or ruled (the tiers' count), refunded and disputed (ever) are
 *   shown beside it; volume is what settled to the seller's side (payout plus fee).
 *
 * Tiers (TIER_THRESHOLDS, the only copy; /api/info, the README and /skill.md quote them): the
 * highest whose completed count, volume and success rate the record reaches, else NEWCOMER. No
 * tier is reached without a rated deal. reputationTierSql is the same rule in SQL (sql-twins.test.ts).
 */
export { REPUTATION_TIERS, type ReputationTier };

export interface TrackRecord {
  /** Escrows released or ruled, in either role. */
  completed: number;
  refunded: number;
  /** Escrows disputed at some point, whatever came of it. */
  disputed: number;
  /** Escrows released without a dispute: the successes. */
  successes: number;
  /** Escrows in dispute now (not yet ruled, released or refunded). */
  inDispute: number;
  /** Value settled to the seller side, in either role (wei). */
  volumeWei: bigint;
}

const USDC = 1_000_000n;
export const TIER_THRESHOLDS = {
  VETERAN: { completed: 50, volumeWei: 5_000n * USDC, successRate: 0.95 },
  TRUSTED: { completed: 10, volumeWei: 500n * USDC, successRate: 0.9 },
  RELIABLE: { completed: 1, volumeWei: 0n, successRate: 0.75 },
} as const;

/** The tiers with thresholds, highest first. */
export const RANKED_TIERS = ["VETERAN", "TRUSTED", "RELIABLE"] as const;

/** Deals the success rate is worked out over: ended (released, ruled, refunded) or in dispute now. */
export function ratedDeals(record: Pick<TrackRecord, "completed" | "refunded" | "inDispute">): number {
  return record.completed + record.refunded + record.inDispute;
}

/** Successes over rated deals, 0 to 1; undefined without a rated deal. */
export function successRate(record: TrackRecord): number | undefined {
  const rated = ratedDeals(record);
  return rated === 0 ? undefined : record.successes / rated;
}

/** The success rate as an integer percentage, rounded down; undefined without a rated deal. */
export function successPercent(record: TrackRecord): number | undefined {
  const rated = ratedDeals(record);
  return rated === 0 ? undefined : Math.floor((record.successes * 100) / rated);
}

/**
 * The success rate as answers carry it: a number always (the documented types), with the rated
 * deals beside it; `rated_deals: 0` means there is no rate (the number is then 0).
 */
export function successFigures(record: TrackRecord): { rate: number; percent: number; ratedDeals: number } {
  return { rate: successRate(record) ?? 0, percent: successPercent(record) ?? 0, ratedDeals: ratedDeals(record) };
}

/**
 * Whether successes / rated reaches `threshold`, in integers (successes × 100 ≥ threshold% ×
 * rated): the SQL twin compares the same integers, so both agree at every edge.
 */
function reaches(successes: number, rated: number, threshold: number): boolean {
  return rated > 0 && successes * 100 >= Math.round(threshold * 100) * rated;
}

export function reputationTier(record: TrackRecord): ReputationTier {
  const rated = ratedDeals(record);
  for (const tier of RANKED_TIERS) {
    const t = TIER_THRESHOLDS[tier];
    if (
      record.completed >= t.completed &&
      record.volumeWei >= t.volumeWei &&
      reaches(record.successes, rated, t.successRate)
    ) {
      return tier;
    }
  }
  return "NEWCOMER";
}

/** A track record's numbers as SQL expressions (over a row of app.agent_records, say). */
export type TrackRecordSql = Record<"completed" | "rated" | "successes" | "volumeWei", SQL>;

/**
 * reputationTier in SQL, built from the same thresholds: answers Postgres builds as JSON (the
 * browse) name each seller's tier without sending its record. sql-twins.test.ts compares the two.
 */
export function reputationTierSql(record: TrackRecordSql): SQL<ReputationTier> {
  const cases = RANKED_TIERS.map((tier) => {
    const t = TIER_THRESHOLDS[tier];
    const percent = sql.raw(String(Math.round(t.successRate * 100)));
    return sql`WHEN ${record.completed} >= ${sql.raw(String(t.completed))} AND ${record.volumeWei} >= ${sql.raw(t.volumeWei.toString())}
      AND ${record.rated} > 0 AND (${record.successes})::bigint * 100 >= ${percent}::bigint * (${record.rated}) THEN '${sql.raw(tier)}'`;
  });
  return sql<ReputationTier>`(CASE ${sql.join(cases, sql` `)} ELSE 'NEWCOMER' END)`;
}

/** successPercent in SQL (0 without a rated deal, as the answers carry it): for the kept figures browse reads. */
export function successPercentSql(record: Pick<TrackRecordSql, "rated" | "successes">): SQL<number> {
  return sql<number>`(CASE WHEN ${record.rated} > 0 THEN ((${record.successes})::bigint * 100 / (${record.rated}))::int ELSE 0 END)`;
}

/** The thresholds as /api/info states them (the web's tier explanations read them there). */
export function tierThresholdsView() {
  return RANKED_TIERS.map((tier) => {
    const t = TIER_THRESHOLDS[tier];
    return {
      tier,
      min_completed: t.completed,
      min_volume_wei: t.volumeWei.toString(),
      min_success_percent: Math.round(t.successRate * 100),
    };
  });
}

/** The success rate's rule in one sentence, for /api/info and /skill.md. */
export const SUCCESS_RATE_RULE =
  "Success rate = escrows released without a dispute / rated deals, where a rated deal is an escrow (as buyer or seller) that was released, ruled or refunded, or is in dispute now; refunds, rulings, open disputes and releases after a dispute count against it. No rated deal: no rate (rated_deals 0).";
