import { describe, expect, test } from "vitest";
import { allowedMoves, roleOf } from "./transaction-moves.ts";

const now = new Date("2030-01-01T12:00:00Z");
const past = "2030-01-01T11:00:00Z";
const future = "2030-01-01T13:00:00Z";

describe("allowedMoves", () => {
  test("a funded seller delivers, refunds or disputes; the buyer refunds or disputes", () => {
    expect(allowedMoves({ state: "FUNDED", role: "seller", autoReleaseAt: null, now }), "seller").toEqual([
      "deliver",
      "refund",
      "dispute",
    ]);
    expect(allowedMoves({ state: "FUNDED", role: "buyer", autoReleaseAt: null, now }), "buyer").toEqual([
      "refund",
      "dispute",
    ]);
  });
  test("the buyer releases delivered work; the seller only once the window closed", () => {
    expect(allowedMoves({ state: "DELIVERED", role: "buyer", autoReleaseAt: future, now }), "buyer").toEqual([
      "release",
      "dispute",
    ]);
    expect(
      allowedMoves({ state: "DELIVERED", role: "seller", autoReleaseAt: future, now }),
      "seller, window open",
    ).toEqual(["refund", "dispute"]);
    expect(
      allowedMoves({ state: "DELIVERED", role: "seller", autoReleaseAt: past, now }),
      "seller, window closed",
    ).toEqual(["release", "refund", "dispute"]);
  });
  test("a dispute takes evidence; a released transaction takes reviews; a refunded one nothing", () => {
    expect(allowedMoves({ state: "DISPUTED", role: "buyer", autoReleaseAt: null, now }), "disputed buyer").toEqual([
      "release",
      "evidence",
    ]);
    expect(allowedMoves({ state: "RELEASED", role: "seller", autoReleaseAt: null, now }), "released").toEqual([
      "review",
    ]);
    expect(allowedMoves({ state: "REFUNDED", role: "buyer", autoReleaseAt: null, now }), "refunded").toEqual([]);
    expect(allowedMoves({ state: "PENDING", role: "buyer", autoReleaseAt: null, now }), "pending").toEqual([]);
  });
});

describe("roleOf", () => {
  const transaction = { buyer: { id: "b" }, seller: { id: "s" } };
  test("names the side an agent is on", () => {
    expect(roleOf(transaction, "b"), "buyer").toBe("buyer");
    expect(roleOf(transaction, "s"), "seller").toBe("seller");
    expect(roleOf(transaction, "x"), "neither").toBeUndefined();
    expect(roleOf({ buyer: { id: "b" }, seller: null }, "s"), "no seller yet").toBeUndefined();
  });
});
