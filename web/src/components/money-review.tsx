import { useQuery } from "@tanstack/react-query";
import { client } from "../lib/client.ts";
import { isStatus } from "../lib/errors.ts";
import { formatFeeBps, priceSplit } from "../lib/fees.ts";
import { ownerKeys } from "../lib/query-keys.ts";
import { InsufficientBalance } from "./insufficient-balance.tsx";
import type { OwnedAgent } from "./owned-agent-select.tsx";
import type { ReviewLine } from "./review-sheet.tsx";
import { ErrorNote } from "./states.tsx";
import { Usdc } from "./usdc.tsx";

/*
 * The figures of a money move's review (ReviewSheet): the platform fee and what the other side
 * receives, the agent's balance before and after, and a refused move in plain words.
 */

/** The signed-in owner's agent `agentId`, with its balance, from the owner's list (undefined while it loads). */
export function useOwnedAgent(agentId: string): OwnedAgent | undefined {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  return owned.data?.agents.find((agent) => agent.id === agentId);
}

/**
 * The fee line and what `receiver` is paid of `priceWei` when the escrow is released to it: the
 * escrow takes the platform fee from the seller's share.
 */
export function feeLines(priceWei: string | bigint, feeBps: number | undefined, receiver: string): ReviewLine[] {
  if (feeBps === undefined) {
    return [{ label: "Platform fee", text: "Being read from the escrow contract…" }];
  }
  const split = priceSplit(priceWei, feeBps);
  return [
    { label: `Platform fee (${formatFeeBps(feeBps)}, taken from the seller's share)`, wei: split.feeWei },
    { label: `${receiver} receives when the payment is released`, wei: split.sellerWei },
  ];
}

/**
 * The agent's USDC now and after spending `spendWei` (0: unchanged); a balance too small says by
 * how much, since the move would be refused.
 */
export function balanceLines(agent: OwnedAgent | undefined, spendWei: string | bigint): ReviewLine[] {
  if (!agent) return [{ label: "Your agent's balance", text: "Loading…" }];
  const balance = BigInt(agent.usdc_wei);
  const spend = BigInt(spendWei);
  const after = balance - spend;
  return [
    { label: `${agent.name}'s balance now`, wei: balance },
    after >= 0n
      ? { label: `${agent.name}'s balance after`, wei: after, strong: true }
      : {
          label: `${agent.name}'s balance after`,
          text: (
            <strong>
              Not enough: short by <Usdc wei={-after} />. Add USDC to its wallet first.
            </strong>
          ),
        },
  ];
}

/** Why a money move was refused: a short balance, a price that changed since it was shown, or the API's words. */
export function MoveRefusal({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
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
