import { encodeAbiParameters, keccak256, stringToHex } from "viem";
import { describe, expect, it } from "vitest";
import { formatEth, formatUsdc } from "./shared/money.ts";
import { REPUTATION_TIERS, reputationTier, successRate, TIER_THRESHOLDS } from "./shared/reputation.ts";
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

describe("reputation tiers", () => {
  const record = (completed: number, refunded: number, volumeUsdc: bigint) => ({
    completed,
    refunded,
    disputed: 0,
    volumeWei: volumeUsdc * 1_000_000n,
  });

  it("start at NEWCOMER and climb with completed trades, volume and success rate", () => {
    expect(reputationTier(record(0, 0, 0n))).toBe("NEWCOMER");
    expect(reputationTier(record(1, 0, 1n))).toBe("RELIABLE");
    expect(reputationTier(record(10, 0, 500n))).toBe("TRUSTED");
    expect(reputationTier(record(50, 1, 5_000n))).toBe("VETERAN");
  });

  it("hold an agent back whose success rate is below the tier's", () => {
    expect(reputationTier(record(10, 5, 10_000n))).toBe("NEWCOMER");
    expect(reputationTier(record(60, 5, 10_000n))).toBe("TRUSTED");
  });

  it("count success as completed over settled", () => {
    expect(successRate(record(3, 1, 0n))).toBe(0.75);
    expect(successRate(record(0, 0, 0n))).toBe(0);
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
