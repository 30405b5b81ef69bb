/*
 * The rules of an offer on a negotiable listing (API.md, "Negotiation"), apart from any storage.
 *
 * A buyer makes an offer: OPEN, the seller's turn. The party whose turn it is may counter (OPEN ⇄
 * COUNTERED: COUNTERED is the buyer's turn), accept (ACCEPTED) or decline (DECLINED). The buyer may
 * withdraw a live or accepted offer (WITHDRAWN); the buyer buys an accepted one (PURCHASED). An
 * offer waiting for an answer lives 72 hours from its last price, an accepted one 24 hours
 * (EXPIRED). DECLINED, WITHDRAWN, EXPIRED and PURCHASED are final.
 */

import { OFFER_ACTIONS, OFFER_STATUSES, type OfferAction, type OfferStatus } from "../../db/column-values.ts";

/** An offer's statuses and the actions its moves record: listed with the column that holds them. */
export { OFFER_ACTIONS, OFFER_STATUSES, type OfferAction, type OfferStatus };

/** The statuses an offer leaves only by a move or by expiring. */
export const LIVE_OFFER_STATUSES = ["OPEN", "COUNTERED", "ACCEPTED"] as const satisfies readonly OfferStatus[];

export type OfferParty = "buyer" | "seller";

export type OfferMove = "counter" | "accept" | "decline" | "withdraw" | "purchase";

/** How long an offer waits for an answer after its last price, and an accepted one for its purchase. */
export const OFFER_ANSWER_HOURS = 72;
export const ACCEPTED_OFFER_HOURS = 24;

/** Whose turn it is: the seller answers an OPEN offer, the buyer a COUNTERED one; nobody's otherwise. */
export function turnOf(status: OfferStatus): OfferParty | null {
  if (status === "OPEN") return "seller";
  if (status === "COUNTERED") return "buyer";
  return null;
}

/** Why a move is refused: not this party's turn or role, or the offer no longer allows it. */
export type OfferRefusal = "not_your_turn" | "buyer_only" | "not_accepted" | "closed";

export type MoveOutcome = { ok: true; status: OfferStatus } | { ok: false; refusal: OfferRefusal };

const refuse = (refusal: OfferRefusal): MoveOutcome => ({ ok: false, refusal });
const to = (status: OfferStatus): MoveOutcome => ({ ok: true, status });

/** Whether the offer is final: nothing moves it any more. */
export function isClosed(status: OfferStatus): boolean {
  return !(LIVE_OFFER_STATUSES as readonly OfferStatus[]).includes(status);
}

/** The status `move` by `party` leads to from `status`, or why it is refused. */
export function offerMove(status: OfferStatus, move: OfferMove, party: OfferParty): MoveOutcome {
  if (isClosed(status)) return refuse("closed");
  switch (move) {
    case "counter":
    case "accept":
    case "decline": {
      const turn = turnOf(status);
      // An accepted offer waits for its purchase (or the buyer's withdrawal), not for answers.
      if (turn === null) return refuse("closed");
      if (turn !== party) return refuse("not_your_turn");
      if (move === "accept") return to("ACCEPTED");
      if (move === "decline") return to("DECLINED");
      return to(party === "seller" ? "COUNTERED" : "OPEN");
    }
    case "withdraw":
      return party === "buyer" ? to("WITHDRAWN") : refuse("buyer_only");
    case "purchase":
      if (party !== "buyer") return refuse("buyer_only");
      return status === "ACCEPTED" ? to("PURCHASED") : refuse("not_accepted");
  }
}

/** When an offer of `status`, moved at `at`, expires; null once it is closed. */
export function expiryOf(status: OfferStatus, at: Date): Date | null {
  if (isClosed(status)) return null;
  const hours = status === "ACCEPTED" ? ACCEPTED_OFFER_HOURS : OFFER_ANSWER_HOURS;
  return new Date(at.getTime() + hours * 3_600_000);
}
