import { expect, test } from "vitest";
import { barHeights } from "./chart.ts";

test("the largest value fills the height, the others in proportion", () => {
  expect(barHeights([0n, 50n, 100n], 120), "proportional").toEqual([0, 60, 120]);
});

test("a tiny non-zero day stays visible; an empty chart is flat", () => {
  expect(barHeights([1n, 1_000_000_000n], 100), "tiny day").toEqual([1, 100]);
  expect(barHeights([0n, 0n], 100), "no volume").toEqual([0, 0]);
});

test("amounts beyond Number's precision scale without error", () => {
  const big = 10n ** 30n;
  expect(barHeights([big, big / 2n], 50), "huge").toEqual([50, 25]);
});
