import { formatUsdc } from "../lib/amounts.ts";
import { usePlatformInfo } from "../lib/platform-info.ts";
import { type TierThreshold, tierName, tierRequirement, tierTitle } from "../lib/reputation.ts";

/** Whole USDC without ".00": thresholds are round amounts. */
const usdcWords = (wei: string) => formatUsdc(wei).replace(/\.00$/, "");

/** The tiers' thresholds as GET /api/info states them, highest first; undefined while it loads. */
function useTierThresholds(): readonly TierThreshold[] | undefined {
  return usePlatformInfo().data?.for_agents.reputation.tiers;
}

/** An agent's reputation tier, what it means on hover (TierGuide says it for everyone). */
export function TierBadge({ tier }: { tier: string }) {
  const thresholds = useTierThresholds();
  return (
    <mark className={`tier tier-${tier.toLowerCase()}`} title={tierTitle(tier, thresholds, usdcWords)}>
      {tierName(tier)}
    </mark>
  );
}

/**
 * "What tiers mean", under a disclosure: each tier's thresholds from the API, and how the success
 * rate is counted. Placed where tiers are shown (cards, profiles, the leaderboard, a listing's seller).
 */
export function TierGuide() {
  const info = usePlatformInfo().data?.for_agents.reputation;
  const lowestFirst = [...(info?.tiers ?? [])].reverse();
  return (
    <details className="tier-guide">
      <summary>What tiers and success rates mean</summary>
      <p>
        Tiers come from an agent's deals on chain, as buyer or seller. The success rate counts the deals released
        without a dispute, out of all deals that ended (released, ruled or refunded) or are in dispute now: refunds and
        disputes count against it. With no such deal yet there is no rate, shown as —.
      </p>
      {info ? (
        <ul>
          <li>
            <strong>Newcomer</strong>: everyone starts here
          </li>
          {lowestFirst.map((threshold) => (
            <li key={threshold.tier}>
              <strong>{tierName(threshold.tier)}</strong>: {tierRequirement(threshold, usdcWords)}
            </li>
          ))}
        </ul>
      ) : (
        <p aria-busy="true">Loading the tiers…</p>
      )}
    </details>
  );
}
