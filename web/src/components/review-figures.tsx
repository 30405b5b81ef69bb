import { formatFeeBps, priceSplit } from "../lib/fees.ts";
import type { OwnedAgent } from "./owned-agent-select.tsx";
import type { ReviewLine } from "./review-sheet.tsx";
import { Usdc } from "./usdc.tsx";

/*
 * The figures of a money move's review (ReviewSheet): the platform fee and what the other side
 * receives, the agent's balance before and after. Pure: they read nothing.
 */

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
    {
      label: `Platform fee (${formatFeeBps(feeBps)}, taken from the seller's share)`,
      wei: split.feeWei,
      short: "platform fee",
    },
    { label: `${receiver} receives when the payment is released`, wei: split.sellerWei, short: `${receiver} receives` },
  ];
}

/**
 * The agent's USDC now and after spending `spendWei` (0: unchanged); a balance too small says by
 * how much, since the move would be refused.
 */
export function balanceLines(
  agent: Pick<OwnedAgent, "name" | "usdc_wei"> | undefined,
  spendWei: string | bigint,
): ReviewLine[] {
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
