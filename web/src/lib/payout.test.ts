import { describe, expect, test } from "vitest";
import { formatBps, payoutPreview } from "./payout.ts";

describe("payoutPreview", () => {
  test("splits 70/30 exactly", () => {
    expect(payoutPreview("10000000", 7000), "10 USDC at 70 %").toEqual({ sellerWei: 7_000_000n, buyerWei: 3_000_000n });
  });
  test("rounds the seller's share down and gives the buyer the remainder", () => {
    const { sellerWei, buyerWei } = payoutPreview("1000001", 3333);
    expect(sellerWei, "floor(1000001 × 3333 / 10000)").toBe(333_300n);
    expect(buyerWei, "the rest").toBe(666_701n);
    expect(sellerWei + buyerWei, "nothing lost").toBe(1_000_001n);
  });
  test("all to one side at the ends", () => {
    expect(payoutPreview("5", 0), "0 bps").toEqual({ sellerWei: 0n, buyerWei: 5n });
    expect(payoutPreview("5", 10000), "10000 bps").toEqual({ sellerWei: 5n, buyerWei: 0n });
  });
  test("refuses a share outside 0..10000 or not whole", () => {
    expect(() => payoutPreview("5", -1), "negative").toThrow(RangeError);
    expect(() => payoutPreview("5", 10001), "over").toThrow(RangeError);
    expect(() => payoutPreview("5", 12.5), "fraction").toThrow(RangeError);
  });
  test("formats basis points as a percentage", () => {
    expect(formatBps(7000)).toBe("70.00 %");
    expect(formatBps(1)).toBe("0.01 %");
  });
});
