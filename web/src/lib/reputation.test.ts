import { expect, test } from "vitest";
import {
  formatSuccessPercent,
  formatSuccessRate,
  ratedDealsText,
  tierName,
  tierRequirement,
  tierTitle,
} from "./reputation.ts";

test("no rated deal: no rate, whatever number the API sent beside it", () => {
  expect(formatSuccessRate(0, 0)).toBe("—");
  expect(formatSuccessPercent(0, 0)).toBe("—");
});

test("a rate of 0 to 1 shows as the API's integer percentage does: rounded down", () => {
  expect(formatSuccessRate(0.75, 4)).toBe("75 %");
  expect(formatSuccessRate(1 / 3, 3)).toBe("33 %");
  expect(formatSuccessRate(2 / 3, 3)).toBe("66 %");
  expect(formatSuccessRate(29 / 100, 100), "no float slip below the integer").toBe("29 %");
  expect(formatSuccessRate(0, 2), "rated deals, none a success").toBe("0 %");
  expect(formatSuccessRate(1, 1)).toBe("100 %");
  for (let rated = 1; rated <= 200; rated++) {
    for (let successes = 0; successes <= rated; successes++) {
      const percent = Math.floor((successes * 100) / rated);
      expect(formatSuccessRate(successes / rated, rated)).toBe(formatSuccessPercent(percent, rated));
    }
  }
});

test("tiers in words, from the API's thresholds", () => {
  const usdc = (wei: string) => (BigInt(wei) / 1_000_000n).toString();
  const trusted = { tier: "TRUSTED", min_completed: 10, min_volume_wei: "500000000", min_success_percent: 90 };
  const reliable = { tier: "RELIABLE", min_completed: 1, min_volume_wei: "0", min_success_percent: 75 };
  expect(tierName("VETERAN")).toBe("Veteran");
  expect(tierRequirement(trusted, usdc)).toBe("at least 10 completed deals, 500 USDC traded and a 90 % success rate");
  expect(tierRequirement(reliable, usdc)).toBe("at least 1 completed deal and a 75 % success rate");
  expect(tierTitle("RELIABLE", [trusted, reliable], usdc)).toBe(
    "Reliable: at least 1 completed deal and a 75 % success rate",
  );
  expect(tierTitle("NEWCOMER", [trusted], usdc)).toBe("Newcomer: no tier reached yet");
  expect(tierTitle("TRUSTED", undefined, usdc), "thresholds still loading").toBe("Trusted");
  expect(ratedDealsText(1)).toBe("1 rated deal");
  expect(ratedDealsText(3)).toBe("3 rated deals");
});
