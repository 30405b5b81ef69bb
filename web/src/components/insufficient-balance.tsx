import type { MarketplaceError } from "@agent-marketplace/sdk";
import { errorText } from "../lib/errors.ts";
import { Usdc } from "./usdc.tsx";

/**
 * A 402: how much the agent has, how much is needed, and the shortfall, in USDC. The API's own
 * sentence counts in wei (for programs); people read the figures instead, and the sentence only
 * when the figures are missing.
 */
export function InsufficientBalance({ error }: { error: MarketplaceError }) {
  const body = error.body as { required_wei?: string; balance_wei?: string; shortfall_wei?: string };
  const figures = body.required_wei && body.balance_wei && body.shortfall_wei;
  return (
    <div role="alert" className="error-note">
      <p>
        <strong>Insufficient balance.</strong> {!figures && errorText(error)}
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
