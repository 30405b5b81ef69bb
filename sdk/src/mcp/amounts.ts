/*
 * USDC amounts between people and the API: the API speaks wei (USDC has 6 decimals, so
 * 1 USDC = 1000000 wei), people and models speak "12.5". Both ways are exact: strings and
 * bigints only, never a floating-point number.
 */

export const USDC_DECIMALS = 6;
const WEI_PER_USDC = 10n ** BigInt(USDC_DECIMALS);

/** An amount that is not a non-negative decimal (USDC) or integer (wei) string. */
export class AmountError extends Error {
  readonly code = "invalid_amount";
  constructor(message: string) {
    super(message);
    this.name = "AmountError";
  }
}

const USDC_PATTERN = new RegExp(`^(\\d+)(?:\\.(\\d{1,${USDC_DECIMALS}}))?$`);

/** "12.5" → 12500000n. Refuses signs, more than 6 decimals, exponents, spaces and anything else. */
export function parseUsdc(text: string): bigint {
  if (text.startsWith("-")) throw new AmountError(`A USDC amount cannot be negative: "${text}"`);
  const match = USDC_PATTERN.exec(text);
  if (!match) {
    if (/^\d+\.\d+$/.test(text)) {
      throw new AmountError(`USDC has ${USDC_DECIMALS} decimals; "${text}" has more`);
    }
    throw new AmountError(`Not a USDC amount: "${text}" (write it like "12.5")`);
  }
  const [, whole = "0", fraction = ""] = match;
  return BigInt(whole) * WEI_PER_USDC + BigInt(fraction.padEnd(USDC_DECIMALS, "0"));
}

/** "12500000" → 12500000n: an integer string of USDC wei, nothing else. */
export function parseWei(text: string): bigint {
  if (text.startsWith("-")) throw new AmountError(`An amount in wei cannot be negative: "${text}"`);
  if (!/^\d+$/.test(text)) throw new AmountError(`Not an amount in wei: "${text}" (an integer, e.g. "12500000")`);
  return BigInt(text);
}

/** 12500000n → "12.500000": always 6 decimals, so that an amount reads the same everywhere. */
export function formatUsdc(wei: bigint): string {
  const sign = wei < 0n ? "-" : "";
  const magnitude = wei < 0n ? -wei : wei;
  const whole = magnitude / WEI_PER_USDC;
  const fraction = (magnitude % WEI_PER_USDC).toString().padStart(USDC_DECIMALS, "0");
  return `${sign}${whole}.${fraction}`;
}

/**
 * The amount a tool input gives for `field` as `<field>_usdc` or `<field>_wei`, in wei.
 * `required`: exactly one of the two; otherwise at most one (undefined when neither).
 */
export function amountFromInput(input: Record<string, unknown>, field: string, required: true): bigint;
export function amountFromInput(input: Record<string, unknown>, field: string, required?: false): bigint | undefined;
export function amountFromInput(input: Record<string, unknown>, field: string, required = false): bigint | undefined {
  const usdc = input[`${field}_usdc`];
  const wei = input[`${field}_wei`];
  if (usdc !== undefined && wei !== undefined) {
    throw new AmountError(`Give ${field}_usdc or ${field}_wei, not both`);
  }
  if (typeof usdc === "string") return parseUsdc(usdc);
  if (typeof wei === "string") return parseWei(wei);
  if (required) throw new AmountError(`Give ${field}_usdc (e.g. "12.5") or ${field}_wei (e.g. "12500000")`);
  return undefined;
}

/**
 * The name of the USDC field that goes next to a wei field of an answer (`amount_wei` →
 * `amount_usdc`, `usdc_wei` → `usdc`); undefined for amounts that are not USDC (`eth_wei`).
 */
export function usdcFieldOf(weiField: string): string | undefined {
  if (!weiField.endsWith("_wei")) return undefined;
  const stem = weiField.slice(0, -"_wei".length);
  if (stem === "eth" || stem.endsWith("_eth")) return undefined;
  return stem === "usdc" ? "usdc" : `${stem}_usdc`;
}

/**
 * A copy of an API answer where every USDC `*_wei` field (at any depth) has its `*_usdc` twin
 * right after it, formatted with 6 decimals. A `*_usdc` field the API sent (e.g. a listing's
 * two-decimal `price_usdc`) is replaced by the exact one.
 */
export function withUsdcAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withUsdcAmounts);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const twins = new Map<string, string>();
  for (const [name, field] of entries) {
    const twin = usdcFieldOf(name);
    if (twin && typeof field === "string" && /^-?\d+$/.test(field)) twins.set(twin, formatUsdc(BigInt(field)));
  }
  const copy: Record<string, unknown> = {};
  for (const [name, field] of entries) {
    if (twins.has(name)) continue;
    copy[name] = withUsdcAmounts(field);
    const twin = usdcFieldOf(name);
    if (twin && twins.has(twin)) copy[twin] = twins.get(twin);
  }
  return copy;
}
