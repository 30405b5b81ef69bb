import { describe, expect, test } from "vitest";
import { formatBps, payoutPreview } from "./payout.ts";

describe("payoutPreview", () => {
  test("splits 70/30 exactly, without a fee", () => {
    expect(payoutPreview("10000000", 7000, 0), "10 USDC at 70 %").toEqual({
      sellerShareWei: 7_000_000n,
      feeWei: 0n,
      sellerWei: 7_000_000n,
      buyerWei: 3_000_000n,
    });
  });
  test("takes the platform fee from the seller's share only", () => {
    const preview = payoutPreview("10000000", 7000, 100);
    expect(preview.feeWei, "1 % of the 7 USDC share").toBe(70_000n);
    expect(preview.sellerWei, "the share less the fee").toBe(6_930_000n);
    expect(preview.buyerWei, "the buyer's part carries no fee").toBe(3_000_000n);
    expect(preview.sellerWei + preview.feeWei + preview.buyerWei, "all of the escrow").toBe(10_000_000n);
  });
  test("rounds the seller's share and the fee down; the buyer gets the remainder", () => {
    const { sellerShareWei, feeWei, sellerWei, buyerWei } = payoutPreview("1000001", 3333, 250);
    expect(sellerShareWei, "floor(1000001 × 3333 / 10000)").toBe(333_300n);
    expect(feeWei, "floor(333300 × 250 / 10000)").toBe(8_332n);
    expect(sellerWei).toBe(324_968n);
    expect(buyerWei, "the rest").toBe(666_701n);
    expect(sellerWei + feeWei + buyerWei, "nothing lost").toBe(1_000_001n);
  });
  test("all to one side at the ends", () => {
    expect(payoutPreview("5", 0, 100), "0 bps").toMatchObject({ sellerWei: 0n, feeWei: 0n, buyerWei: 5n });
    expect(payoutPreview("5", 10000, 0), "10000 bps").toMatchObject({ sellerWei: 5n, buyerWei: 0n });
  });
  test("refuses a share or a fee outside 0..10000 or not whole", () => {
    expect(() => payoutPreview("5", -1, 0), "negative").toThrow(RangeError);
    expect(() => payoutPreview("5", 10001, 0), "over").toThrow(RangeError);
    expect(() => payoutPreview("5", 12.5, 0), "fraction").toThrow(RangeError);
    expect(() => payoutPreview("5", 5000, -1), "negative fee").toThrow(RangeError);
    expect(() => payoutPreview("5", 5000, 10001), "fee over").toThrow(RangeError);
  });
  test("formats basis points as a percentage", () => {
    expect(formatBps(7000)).toBe("70.00 %");
    expect(formatBps(1)).toBe("0.01 %");
  });
});
