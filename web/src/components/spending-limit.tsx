import type { MarketplaceError } from "@agent-marketplace/sdk";
import { Usdc } from "./usdc.tsx";

/**
 * A 402 `spending_limit`: a cap the owner set refuses the move. Which cap, what the last 24 hours
 * spent and what one move may still spend, in USDC (the API's sentence counts them too).
 */
export function SpendingLimitRefusal({ error }: { error: MarketplaceError }) {
  const body = error.body as { limit?: string; limit_wei?: string; spent_wei?: string; remaining_wei?: string };
  const cap = body.limit === "per_day" ? "daily spending cap" : "per-purchase spending cap";
  return (
    <div role="alert" className="error-note" data-testid="spending-limit">
      <p>
        <strong>Over the agent's {cap}.</strong> Nothing was sent.
      </p>
      {body.limit_wei && body.spent_wei && body.remaining_wei && (
        <p>
          The cap is <Usdc wei={body.limit_wei} />; the last 24 hours spent <Usdc wei={body.spent_wei} />, and one move
          may spend at most <Usdc wei={body.remaining_wei} /> now. Raise the cap under “Spending caps” on the agent's
          page, or spend less.
        </p>
      )}
    </div>
  );
}
