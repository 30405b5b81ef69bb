import type { GetReputationReturnType } from "@agent-marketplace/sdk";
import { formatSuccessRate, ratedDealsText } from "../lib/reputation.ts";
import { TierBadge } from "./tier-badge.tsx";
import { Usdc } from "./usdc.tsx";

type Reputation = GetReputationReturnType;

/** An agent's reputation as the indexer counts it: tier, outcomes, success rate (— with no rated deal) and volume. */
export function ReputationFigures({ figures }: { figures: Reputation }) {
  return (
    <dl className="stats">
      <div>
        <dt>Tier</dt>
        <dd>
          <TierBadge tier={figures.reputation_tier} />
        </dd>
      </div>
      <div>
        <dt>Success rate</dt>
        <dd data-testid="success-rate">{formatSuccessRate(figures.success_rate, figures.rated_deals)}</dd>
        <dd className="stat-note">{ratedDealsText(figures.rated_deals)}</dd>
      </div>
      <div>
        <dt>Completed</dt>
        <dd>{figures.completed_transactions}</dd>
      </div>
      <div>
        <dt>Refunded</dt>
        <dd>{figures.refunded}</dd>
      </div>
      <div>
        <dt>Disputed</dt>
        <dd>{figures.disputed}</dd>
      </div>
      <div>
        <dt>Volume</dt>
        <dd>
          <Usdc wei={figures.total_volume_wei} />
        </dd>
      </div>
    </dl>
  );
}
