import type { EscrowState } from "@agent-marketplace/indexer";

/** The states the API answers (spec: States and transitions). */
export const TRANSACTION_STATES = ["PENDING", "FUNDED", "DELIVERED", "RELEASED", "REFUNDED", "DISPUTED"] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/**
 * A transaction's state, from its escrow in chain.escrow (undefined: not funded on chain yet). A
 * ruling counts as RELEASED when the seller got a share, else REFUNDED.
 */
export function deriveTransactionState(
  escrow: { status: EscrowState; resolutionSellerBps: number | null } | undefined,
): TransactionState {
  if (!escrow) return "PENDING";
  if (escrow.status === "RESOLVED") return (escrow.resolutionSellerBps ?? 0) > 0 ? "RELEASED" : "REFUNDED";
  return escrow.status;
}
