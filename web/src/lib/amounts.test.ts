import { describe, expect, test } from "vitest";
import { formatUsdc, parseUsdc } from "./amounts.ts";

describe("formatUsdc", () => {
  test("shows two decimals for whole cents", () => {
    expect(formatUsdc("12500000"), "12.5 USDC").toBe("12.50");
    expect(formatUsdc("0"), "zero").toBe("0.00");
    expect(formatUsdc(10_000_000_000n), "10,000 USDC").toBe("10000.00");
  });
  test("keeps every decimal an amount has, never rounding", () => {
    expect(formatUsdc("1"), "one wei").toBe("0.000001");
    expect(formatUsdc("12345678"), "12.345678").toBe("12.345678");
    expect(formatUsdc("1230000"), "trailing zeros trimmed to two").toBe("1.23");
  });
  test("handles amounts past Number's precision", () => {
    expect(formatUsdc("123456789012345678901234567"), "a uint256-sized amount").toBe("123456789012345678901.234567");
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
  test("round-trips with formatUsdc", () => {
    for (const wei of ["0", "1", "999999", "1000000", "123456789"]) {
      expect(parseUsdc(formatUsdc(wei)), wei).toBe(wei);
    }
  });
});
