import { describe, expect, test } from "vitest";
import { formatEthExact, formatUsdc, formatUsdcExact, parseUsdc } from "./amounts.ts";

describe("formatUsdc", () => {
  test("shows two decimals, like the API's _formatted fields", () => {
    expect(formatUsdc("12500000"), "12.5 USDC").toBe("12.50");
    expect(formatUsdc("0"), "zero").toBe("0.00");
    expect(formatUsdc(10_000_000_000n), "10,000 USDC").toBe("10000.00");
    expect(formatUsdc("1230000"), "1.23").toBe("1.23");
  });
  test("rounds down past the cent, never showing more than is there", () => {
    expect(formatUsdc("93415000"), "93.415").toBe("93.41");
    expect(formatUsdc("12345678"), "12.345678").toBe("12.34");
    expect(formatUsdc("1"), "one wei").toBe("0.00");
    expect(formatUsdc("-1"), "less than a cent owed").toBe("0.00");
    expect(formatUsdc("-12500000"), "negative").toBe("-12.50");
  });
  test("handles amounts past Number's precision", () => {
    expect(formatUsdc("123456789012345678901234567"), "a uint256-sized amount").toBe("123456789012345678901.23");
  });
});

describe("formatUsdcExact", () => {
  test("keeps every decimal an amount has, at least two, never rounding", () => {
    expect(formatUsdcExact("1"), "one wei").toBe("0.000001");
    expect(formatUsdcExact("93415000"), "93.415").toBe("93.415");
    expect(formatUsdcExact("12500000"), "trailing zeros trimmed to two").toBe("12.50");
    expect(formatUsdcExact("0"), "zero").toBe("0.00");
    expect(formatEthExact("1230000000000000001"), "ETH, 18 decimals").toBe("1.230000000000000001");
  });
});

describe("parseUsdc", () => {
  test("turns USDC typed by a person into wei", () => {
    expect(parseUsdc("12"), "whole").toBe("12000000");
    expect(parseUsdc("12.5"), "one decimal").toBe("12500000");
    expect(parseUsdc("0.000001"), "one wei").toBe("1");
    expect(parseUsdc(".5"), "no leading zero").toBe("500000");
    expect(parseUsdc(" 3 "), "spaces around").toBe("3000000");
  });
  test("refuses what is not an amount", () => {
    for (const text of ["", ".", "-1", "1e6", "abc", "1.2.3", "0.0000001", "1,5"]) {
      expect(parseUsdc(text), JSON.stringify(text)).toBeUndefined();
    }
  });
  test("round-trips with formatUsdcExact", () => {
    for (const wei of ["0", "1", "999999", "1000000", "123456789"]) {
      expect(parseUsdc(formatUsdcExact(wei)), wei).toBe(wei);
    }
  });
});
