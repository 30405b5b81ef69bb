import { useQuery } from "@tanstack/react-query";
import { client } from "../lib/client.ts";
import { isStatus } from "../lib/errors.ts";
import { ownerKeys } from "../lib/query-keys.ts";
import { InsufficientBalance } from "./insufficient-balance.tsx";
import type { OwnedAgent } from "./owned-agent-select.tsx";
import { SpendingLimitRefusal } from "./spending-limit.tsx";
import { ErrorNote } from "./states.tsx";
import { Usdc } from "./usdc.tsx";

/*
 * What a money move's review (ReviewSheet) reads besides its figures (review-figures.tsx): the
 * owner's agent with its balance, and a refused move in plain words.
 */

export { balanceLines, feeLines } from "./review-figures.tsx";

/** The signed-in owner's agent `agentId`, with its balance, from the owner's list (undefined while it loads). */
export function useOwnedAgent(agentId: string): OwnedAgent | undefined {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  return owned.data?.agents.find((agent) => agent.id === agentId);
}

/**
 * Why a money move was refused: a spending cap, a short balance, a price that changed since it was
 * shown, or the API's words.
 */
export function MoveRefusal({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  if (isStatus(error, 402) && error.body.code === "spending_limit") return <SpendingLimitRefusal error={error} />;
  if (isStatus(error, 402)) return <InsufficientBalance error={error} />;
  if (isStatus(error, 409) && error.body.code === "price_changed") {
    const current = (error.body as { current_price_wei?: string }).current_price_wei;
    return (
      <div role="alert" className="error-note">
        <p>
          <strong>
            The price changed
            {current ? (
              <>
                {" "}
                to <Usdc wei={current} />
              </>
            ) : null}
            : review again.
          </strong>{" "}
          Nothing was sent; the figures below are the new ones.
        </p>
      </div>
    );
  }
  return <ErrorNote error={error} />;
}
