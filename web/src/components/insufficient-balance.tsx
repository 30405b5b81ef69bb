import type { MarketplaceError } from "@agent-marketplace/sdk";
import { Usdc } from "./usdc.tsx";

/** A 402: how much the agent has, how much is needed, and the shortfall. */
export function InsufficientBalance({ error }: { error: MarketplaceError }) {
  const body = error.body as { required_wei?: string; balance_wei?: string; shortfall_wei?: string };
  return (
    <div role="alert" className="error-note">
      <p>
        <strong>Insufficient balance.</strong> {error.body.error}
      </p>
      {body.required_wei && body.balance_wei && body.shortfall_wei && (
        <p>
          This needs <Usdc wei={body.required_wei} />; the agent can spend <Usdc wei={body.balance_wei} /> now (what its
          wallet holds, less payments still on their way). Add at least <Usdc wei={body.shortfall_wei} /> to its wallet
          and try again.
        </p>
      )}
    </div>
  );
}
