import { describe, expect, it } from "vitest";
import {
  AmountError,
  amountFromInput,
  formatUsdc,
  parseUsdc,
  parseWei,
  usdcFieldOf,
  withUsdcAmounts,
} from "./amounts.ts";

describe("parseUsdc", () => {
  it.each([
    ["12.5", 12_500_000n],
    ["12", 12_000_000n],
    ["0.000001", 1n],
    ["0", 0n],
    ["007.10", 7_100_000n],
    ["123456789012345678901234567890.123456", 123456789012345678901234567890123456n],
  ])("reads %s as %s wei", (text, wei) => {
    expect(parseUsdc(text)).toBe(wei);
  });

  it("refuses negatives", () => {
    expect(() => parseUsdc("-1")).toThrow(/negative/);
    expect(() => parseUsdc("-0.5")).toThrow(AmountError);
  });

  it("refuses more than 6 decimals", () => {
    expect(() => parseUsdc("1.0000001")).toThrow(/6 decimals/);
  });

  it.each(["", "abc", "1e3", "1,5", " 1", "1 ", "+1", ".5", "5.", "0x10", "1.2.3", "NaN", "Infinity"])(
    "refuses %j",
    (text) => {
      expect(() => parseUsdc(text)).toThrow(AmountError);
    },
  );
});

describe("parseWei", () => {
  it("reads an integer string", () => {
    expect(parseWei("12500000")).toBe(12_500_000n);
    expect(parseWei("0")).toBe(0n);
  });

  it.each(["-1", "1.5", "", "1e6", "12 500 000", "0x10"])("refuses %j", (text) => {
    expect(() => parseWei(text)).toThrow(AmountError);
  });
});

describe("formatUsdc", () => {
  it.each([
    [12_500_000n, "12.500000"],
    [1n, "0.000001"],
    [0n, "0.000000"],
    [10_000_000_000n, "10000.000000"],
    [-2_500_000n, "-2.500000"],
  ])("writes %s wei as %s", (wei, text) => {
    expect(formatUsdc(wei)).toBe(text);
  });

  it("round-trips with parseUsdc", () => {
    for (const text of ["12.500000", "0.000001", "98765.432100"]) expect(formatUsdc(parseUsdc(text))).toBe(text);
  });
});

describe("amountFromInput", () => {
  it("takes the USDC or the wei form", () => {
    expect(amountFromInput({ price_usdc: "1.5" }, "price", true)).toBe(1_500_000n);
    expect(amountFromInput({ price_wei: "1500000" }, "price", true)).toBe(1_500_000n);
  });

  it("refuses both, and neither when one is required", () => {
    expect(() => amountFromInput({ price_usdc: "1.5", price_wei: "1500000" }, "price", true)).toThrow(/not both/);
    expect(() => amountFromInput({}, "price", true)).toThrow(/price_usdc/);
  });

  it("answers undefined for neither when optional", () => {
    expect(amountFromInput({}, "min_price")).toBeUndefined();
  });
});

describe("withUsdcAmounts", () => {
  it("puts a 6-decimal USDC twin right after every USDC wei field, at any depth", () => {
    const answer = {
      id: "t1",
      amount_wei: "12500000",
      resolution: { seller_received_wei: "4950000", fee_wei: "50000" },
      listings: [{ price_wei: "1000000", price_usdc: "1.00" }],
      eth_wei: "1000000000000000000",
      usdc_wei: "7000000",
    };
    const shaped = withUsdcAmounts(answer);
    expect(shaped).toEqual({
      id: "t1",
      amount_wei: "12500000",
      amount_usdc: "12.500000",
      resolution: {
        seller_received_wei: "4950000",
        seller_received_usdc: "4.950000",
        fee_wei: "50000",
        fee_usdc: "0.050000",
      },
      listings: [{ price_wei: "1000000", price_usdc: "1.000000" }],
      eth_wei: "1000000000000000000",
      usdc_wei: "7000000",
      usdc: "7.000000",
    });
    expect(Object.keys(shaped as object)).toEqual([
      "id",
      "amount_wei",
      "amount_usdc",
      "resolution",
      "listings",
      "eth_wei",
      "usdc_wei",
      "usdc",
    ]);
  });

  it("leaves null and non-numeric wei fields alone", () => {
    expect(withUsdcAmounts({ total_wei: null, other_wei: "n/a", list: [1, "x", null] })).toEqual({
      total_wei: null,
      other_wei: "n/a",
      list: [1, "x", null],
    });
  });

  it("names twins", () => {
    expect(usdcFieldOf("total_volume_wei")).toBe("total_volume_usdc");
    expect(usdcFieldOf("usdc_wei")).toBe("usdc");
    expect(usdcFieldOf("eth_wei")).toBeUndefined();
    expect(usdcFieldOf("price")).toBeUndefined();
  });
});
