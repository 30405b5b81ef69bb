import { describe, expect, test } from "vitest";
import { balanceLines, feeLines } from "./review-figures.tsx";

/** An owned agent holding `usdcWei`, as the review reads it. */
const agentWith = (usdcWei: string) => ({ name: "buyer", usdc_wei: usdcWei });

describe("feeLines", () => {
  test("the fee comes out of the seller's share, rounded down, and the rest is what it receives", () => {
    const [fee, receives] = feeLines("10000001", 100, "seller");
    expect(fee).toMatchObject({ label: "Platform fee (1 %, taken from the seller's share)", wei: 100_000n });
    expect(receives).toMatchObject({ label: "seller receives when the payment is released", wei: 9_900_001n });
  });
  test("without the fee yet, says it is being read instead of guessing", () => {
    expect(feeLines("10000000", undefined, "seller")).toEqual([
      { label: "Platform fee", text: "Being read from the escrow contract…" },
    ]);
  });
});

describe("balanceLines", () => {
  test("the balance before and after the move, exactly", () => {
    expect(balanceLines(agentWith("25000000"), "10000000")).toEqual([
      { label: "buyer's balance now", wei: 25_000_000n },
      { label: "buyer's balance after", wei: 15_000_000n, strong: true },
    ]);
  });
  test("a move that spends nothing leaves the balance as it is", () => {
    expect(balanceLines(agentWith("5"), 0n)[1]).toMatchObject({ wei: 5n });
  });
  test("a balance too small says so in place of a negative figure", () => {
    const [, after] = balanceLines(agentWith("1000000"), "3000000");
    expect(after?.wei).toBeUndefined();
    expect(after?.text).toBeDefined();
  });
});
