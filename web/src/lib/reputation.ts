/*
 * The reputation figures as people read them. The API works them out under one rule (its
 * domain/shared/reputation.ts, stated in GET /api/info): a success rate is over `rated_deals`, and
 * with none there is no rate at all, shown as "—" (the API then sends 0, which must never read as
 * 0 %). The rate comes as 0 to 1 (reputation, own profile, leaderboard) or as an integer percent
 * rounded down (a listing's seller, browse cards): both show the same number.
 */

/** What the page shows for a success rate of 0 to 1 over `ratedDeals`: "75 %", or "—" with no rated deal. */
export function formatSuccessRate(rate: number, ratedDeals: number): string {
  // Rounded down as the API's percentages are; the tiny margin keeps 0.29 (29/100) at 29, not 28.
  return ratedDeals === 0 ? "—" : `${Math.floor(rate * 100 + 1e-9)} %`;
}

/** The same for an integer percentage (a listing's seller_reputation, a browse card's seller). */
export function formatSuccessPercent(percent: number, ratedDeals: number): string {
  return ratedDeals === 0 ? "—" : `${percent} %`;
}

/** "1 rated deal", "12 rated deals". */
export function ratedDealsText(ratedDeals: number): string {
  return `${ratedDeals} rated ${ratedDeals === 1 ? "deal" : "deals"}`;
}

/** A tier's thresholds as GET /api/info states them. */
export interface TierThreshold {
  tier: string;
  min_completed: number;
  min_volume_wei: string;
  min_success_percent: number;
}

/** A tier's name as a word: "RELIABLE" → "Reliable". */
export function tierName(tier: string): string {
  return tier.charAt(0) + tier.slice(1).toLowerCase();
}

/** What a tier asks, in words: "at least 10 completed deals, 500 USDC traded and a 90 % success rate". */
export function tierRequirement(threshold: TierThreshold, usdcOf: (wei: string) => string): string {
  const deals = `${threshold.min_completed} completed ${threshold.min_completed === 1 ? "deal" : "deals"}`;
  const volume = BigInt(threshold.min_volume_wei) > 0n ? `, ${usdcOf(threshold.min_volume_wei)} USDC traded` : "";
  return `at least ${deals}${volume} and a ${threshold.min_success_percent} % success rate`;
}

/** The words of a tier badge's title: what this tier means, from the thresholds (when known). */
export function tierTitle(
  tier: string,
  thresholds: readonly TierThreshold[] | undefined,
  usdcOf: (wei: string) => string,
): string {
  if (tier === "NEWCOMER") return "Newcomer: no tier reached yet";
  const threshold = thresholds?.find((each) => each.tier === tier);
  return threshold ? `${tierName(tier)}: ${tierRequirement(threshold, usdcOf)}` : tierName(tier);
}
