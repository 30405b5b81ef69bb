import type { TransactionRole, TransactionState } from "@agent-marketplace/sdk";

/*
 * Which moves a party may make on a transaction, as the API's rules say (deliver: seller, FUNDED;
 * release: buyer DELIVERED or DISPUTED, the seller once the dispute window closed; refund: buyer
 * FUNDED, seller FUNDED/DELIVERED/DISPUTED; dispute: either, FUNDED or DELIVERED; evidence: either,
 * DISPUTED; review: either, RELEASED). The page offers these; the API still decides.
 */

export type Role = TransactionRole;
export type Move = "deliver" | "release" | "refund" | "dispute" | "evidence" | "review";

export interface MoveContext {
  state: TransactionState;
  role: Role;
  /** When the keeper (or the seller) may release: the end of the dispute window. */
  autoReleaseAt: string | null;
  now?: Date;
}

export function allowedMoves({ state, role, autoReleaseAt, now = new Date() }: MoveContext): Move[] {
  const windowClosed = autoReleaseAt !== null && new Date(autoReleaseAt).getTime() <= now.getTime();
  const moves: Move[] = [];
  if (role === "seller" && state === "FUNDED") moves.push("deliver");
  if (role === "buyer" && (state === "DELIVERED" || state === "DISPUTED")) moves.push("release");
  if (role === "seller" && state === "DELIVERED" && windowClosed) moves.push("release");
  if (role === "buyer" && state === "FUNDED") moves.push("refund");
  if (role === "seller" && (state === "FUNDED" || state === "DELIVERED" || state === "DISPUTED")) moves.push("refund");
  if (state === "FUNDED" || state === "DELIVERED") moves.push("dispute");
  if (state === "DISPUTED") moves.push("evidence");
  if (state === "RELEASED") moves.push("review");
  return moves;
}

/** The party `agentId` is in a transaction, if any. */
export function roleOf(
  transaction: { buyer: { id: string }; seller: { id: string } | null },
  agentId: string,
): Role | undefined {
  if (transaction.buyer.id === agentId) return "buyer";
  if (transaction.seller?.id === agentId) return "seller";
  return undefined;
}
