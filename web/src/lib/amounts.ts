/*
 * USDC amounts: the API speaks wei strings (6 decimals); people read and type USDC. Integer math on
 * bigint only, so what is shown and what is sent are exact.
 */

export const USDC_DECIMALS = 6;
const UNIT = 10n ** BigInt(USDC_DECIMALS);

/**
 * "12.50" for 12500000 wei: at least two decimals, more only when the amount has them (never
 * rounded: 1 wei reads 0.000001).
 */
export function formatUsdc(wei: string | bigint): string {
  const value = typeof wei === "bigint" ? wei : BigInt(wei);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / UNIT;
  const fraction = (abs % UNIT).toString().padStart(USDC_DECIMALS, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

/**
 * The wei string of a USDC amount typed by a person ("12", "12.5", "0.000001"); undefined when it
 * is not a non-negative amount with at most 6 decimals.
 */
export function parseUsdc(text: string): string | undefined {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, whole = "", fraction = ""] = match;
  if (whole === "" && fraction === "") return undefined;
  if (fraction.length > USDC_DECIMALS) return undefined;
  return (BigInt(whole || "0") * UNIT + BigInt(fraction.padEnd(USDC_DECIMALS, "0") || "0")).toString();
}
