import { encodeAbiParameters, keccak256, stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { formatEth, formatUsdc } from "./shared/money.ts";
import {
  REPUTATION_TIERS,
  ratedDeals,
  reputationTier,
  successFigures,
  successPercent,
  successRate,
  TIER_THRESHOLDS,
  type TrackRecord,
} from "./shared/reputation.ts";
import { deliverableHash } from "./transactions/deliverables.ts";
import { deriveTransactionState } from "./transactions/transaction-state.ts";

describe("formatUsdc", () => {
  it("shows two decimals, rounded down", () => {
    expect(formatUsdc("0")).toBe("0.00");
    expect(formatUsdc("1000000")).toBe("1.00");
    expect(formatUsdc(1_509_999n)).toBe("1.50");
    expect(formatUsdc("9999")).toBe("0.00");
    expect(formatUsdc("123456789012345678901234567890")).toBe("123456789012345678901234.56");
  });
});

describe("formatEth", () => {
  it("shows two decimals, as the spec's *_formatted fields do, rounded down", () => {
    expect(formatEth(0n)).toBe("0.00");
    expect(formatEth(10n ** 18n)).toBe("1.00");
    expect(formatEth(123_456_789_000_000_000n)).toBe("0.12");
    expect(formatEth(9_999_999_999_999_999n)).toBe("0.00");
    expect(formatEth("10000999999999999999999")).toBe("10000.99");
  });
});

describe("deliverableHash", () => {
  it("is the keccak256 of the content alone when no link was given", () => {
    expect(deliverableHash("the work")).toBe(keccak256(stringToHex("the work")));
    expect(deliverableHash("the work", null)).toBe(keccak256(stringToHex("the work")));
  });

  it("binds the link too when there is one: abi.encode(content, url)", () => {
    const url = "https://example.com/report.pdf";
    const expected = keccak256(encodeAbiParameters([{ type: "string" }, { type: "string" }], ["the work", url]));
    expect(deliverableHash("the work", url)).toBe(expected);
    expect(deliverableHash("the work", url)).not.toBe(deliverableHash("the work"));
    expect(deliverableHash("the work", url)).not.toBe(deliverableHash("the work", "https://example.com/other"));
    // The boundary between content and link is part of what is hashed.
    expect(deliverableHash("ab", "c")).not.toBe(deliverableHash("a", "bc"));
  });
});

describe("the reputation rule", () => {
  /** A record of clean releases, and refunds, rulings and open disputes against them. */
  const record = (
    successes: number,
    { refunded = 0, ruled = 0, inDispute = 0, disputedReleases = 0, volumeUsdc = BigInt(successes) } = {},
  ): TrackRecord => ({
    completed: successes + ruled + disputedReleases,
    refunded,
    disputed: ruled + inDispute + disputedReleases,
    successes,
    inDispute,
    volumeWei: volumeUsdc * 1_000_000n,
  });

  it("has no success rate without a rated deal, and no tier", () => {
    const none = record(0);
    expect(ratedDeals(none)).toBe(0);
    expect(successRate(none)).toBeUndefined();
    expect(successPercent(none)).toBeUndefined();
    expect(successFigures(none)).toEqual({ rate: 0, percent: 0, ratedDeals: 0 });
    expect(reputationTier(none)).toBe("NEWCOMER");
  });

  it("counts refunds, rulings, open disputes and releases after a dispute against the rate", () => {
    expect(successRate(record(3, { refunded: 1 }))).toBe(0.75);
    expect(successRate(record(2, { refunded: 1, ruled: 1 }))).toBe(0.5);
    expect(successRate(record(1, { inDispute: 1 }))).toBe(0.5);
    expect(successRate(record(1, { disputedReleases: 1 }))).toBe(0.5);
    expect(successRate(record(0, { ruled: 1 }))).toBe(0);
    expect(ratedDeals(record(2, { refunded: 1, ruled: 1, inDispute: 1 }))).toBe(5);
  });

  it("rounds the percentage down, in integers", () => {
    expect(successPercent(record(2, { refunded: 1 }))).toBe(66);
    expect(successPercent(record(29, { refunded: 71 }))).toBe(29);
    expect(successPercent(record(1))).toBe(100);
  });

  it("tiers start at NEWCOMER and climb with completed trades, volume and success rate", () => {
    expect(reputationTier(record(1))).toBe("RELIABLE");
    expect(reputationTier(record(10, { volumeUsdc: 500n }))).toBe("TRUSTED");
    expect(reputationTier(record(50, { refunded: 1, volumeUsdc: 5_000n }))).toBe("VETERAN");
  });

  it("tiers hold back an agent whose success rate is below the tier's, disputes included", () => {
    expect(reputationTier(record(10, { refunded: 5, volumeUsdc: 10_000n }))).toBe("NEWCOMER");
    expect(reputationTier(record(60, { refunded: 5, volumeUsdc: 10_000n }))).toBe("TRUSTED");
    expect(reputationTier(record(3, { ruled: 1 }))).toBe("RELIABLE");
    expect(reputationTier(record(2, { ruled: 1, inDispute: 1 }))).toBe("NEWCOMER");
    // A ruling is completed (it counts for the tier's count) but is no success.
    expect(reputationTier(record(0, { ruled: 1 }))).toBe("NEWCOMER");
  });

  it("name every tier that has thresholds", () => {
    expect(REPUTATION_TIERS.filter((tier) => tier !== "NEWCOMER")).toEqual(
      expect.arrayContaining(Object.keys(TIER_THRESHOLDS)),
    );
  });
});

describe("deriveTransactionState", () => {
  it("is PENDING without an escrow and the escrow's status otherwise", () => {
    expect(deriveTransactionState(undefined)).toBe("PENDING");
    for (const status of ["FUNDED", "DELIVERED", "DISPUTED", "RELEASED", "REFUNDED"] as const) {
      expect(deriveTransactionState({ status, resolutionSellerBps: null })).toBe(status);
    }
  });

  it("answers a ruling as RELEASED when the seller got a share, else REFUNDED", () => {
    expect(deriveTransactionState({ status: "RESOLVED", resolutionSellerBps: 1 })).toBe("RELEASED");
    expect(deriveTransactionState({ status: "RESOLVED", resolutionSellerBps: 0 })).toBe("REFUNDED");
  });
});
