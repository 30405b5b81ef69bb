import { describe, expect, it } from "vitest";
import {
  expiryOf,
  isClosed,
  type MoveOutcome,
  OFFER_STATUSES,
  type OfferMove,
  type OfferParty,
  type OfferStatus,
  offerMove,
  turnOf,
} from "./offer-state.ts";

/** Every move by every party from every status, as the rules in offer-state.ts say. */
const EXPECTED: Record<OfferStatus, Record<OfferMove, Record<OfferParty, string>>> = {
  OPEN: {
    counter: { buyer: "not_your_turn", seller: "COUNTERED" },
    accept: { buyer: "not_your_turn", seller: "ACCEPTED" },
    decline: { buyer: "not_your_turn", seller: "DECLINED" },
    withdraw: { buyer: "WITHDRAWN", seller: "buyer_only" },
    purchase: { buyer: "not_accepted", seller: "buyer_only" },
  },
  COUNTERED: {
    counter: { buyer: "OPEN", seller: "not_your_turn" },
    accept: { buyer: "ACCEPTED", seller: "not_your_turn" },
    decline: { buyer: "DECLINED", seller: "not_your_turn" },
    withdraw: { buyer: "WITHDRAWN", seller: "buyer_only" },
    purchase: { buyer: "not_accepted", seller: "buyer_only" },
  },
  ACCEPTED: {
    counter: { buyer: "closed", seller: "closed" },
    accept: { buyer: "closed", seller: "closed" },
    decline: { buyer: "closed", seller: "closed" },
    withdraw: { buyer: "WITHDRAWN", seller: "buyer_only" },
    purchase: { buyer: "PURCHASED", seller: "buyer_only" },
  },
  PURCHASED: closedEverywhere(),
  DECLINED: closedEverywhere(),
  WITHDRAWN: closedEverywhere(),
  EXPIRED: closedEverywhere(),
};

function closedEverywhere(): Record<OfferMove, Record<OfferParty, string>> {
  const both = { buyer: "closed", seller: "closed" };
  return { counter: both, accept: both, decline: both, withdraw: both, purchase: both };
}

const shown = (outcome: MoveOutcome) => (outcome.ok ? outcome.status : outcome.refusal);

describe("the offer state machine", () => {
  for (const status of OFFER_STATUSES) {
    for (const [move, byParty] of Object.entries(EXPECTED[status]) as Array<[OfferMove, Record<OfferParty, string>]>) {
      for (const [party, expected] of Object.entries(byParty) as Array<[OfferParty, string]>) {
        it(`${status}: ${move} by the ${party} → ${expected}`, () => {
          expect(shown(offerMove(status, move, party))).toBe(expected);
        });
      }
    }
  }

  it("gives the turn to the seller on an OPEN offer, to the buyer on a COUNTERED one, to nobody after", () => {
    expect(OFFER_STATUSES.map((status) => [status, turnOf(status)])).toEqual([
      ["OPEN", "seller"],
      ["COUNTERED", "buyer"],
      ["ACCEPTED", null],
      ["PURCHASED", null],
      ["DECLINED", null],
      ["WITHDRAWN", null],
      ["EXPIRED", null],
    ]);
  });

  it("lets a waiting offer live 72 h from its last price, an accepted one 24 h, a closed one not at all", () => {
    const at = new Date("2026-11-26T12:00:00.000Z");
    expect(expiryOf("OPEN", at)?.toISOString()).toBe("2026-11-29T12:00:00.000Z");
    expect(expiryOf("COUNTERED", at)?.toISOString()).toBe("2026-11-29T12:00:00.000Z");
    expect(expiryOf("ACCEPTED", at)?.toISOString()).toBe("2026-11-27T12:00:00.000Z");
    for (const status of ["PURCHASED", "DECLINED", "WITHDRAWN", "EXPIRED"] as const) {
      expect(isClosed(status)).toBe(true);
      expect(expiryOf(status, at)).toBeNull();
    }
  });
});
