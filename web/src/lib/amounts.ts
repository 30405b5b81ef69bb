/*
 * USDC amounts: the API speaks wei strings (6 decimals); people read and type USDC. Integer math on
 * bigint only, so what is shown and what is sent are exact.
 */

export const USDC_DECIMALS = 6;
const UNIT = 10n ** BigInt(USDC_DECIMALS);

/** The whole units and every decimal of an amount of a token with `decimals` places, sign apart. */
function unitsOf(wei: string | bigint, decimals = USDC_DECIMALS) {
  const value = typeof wei === "bigint" ? wei : BigInt(wei);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const unit = decimals === USDC_DECIMALS ? UNIT : 10n ** BigInt(decimals);
  return {
    sign: negative ? "-" : "",
    whole: abs / unit,
    decimals: (abs % unit).toString().padStart(decimals, "0"),
  };
}

/**
 * "12.50" for 12500000 wei: two decimals, rounded down, as the API's `_formatted` and `price_usdc`
 * fields say it (api/src/domain/shared/money.ts): one format for every amount people read. The
 * exact amount is {@link formatUsdcExact}.
 */
export function formatUsdc(wei: string | bigint): string {
  const { sign, whole, decimals } = unitsOf(wei);
  const shown = `${whole}.${decimals.slice(0, 2)}`;
  // A debt of less than a cent reads 0.00, not -0.00.
  return shown === "0.00" ? shown : `${sign}${shown}`;
}

/**
 * Every decimal an amount has, at least two, never rounded ("0.000001" for 1 wei): the exact
 * figure, for the hover title beside {@link formatUsdc} and for a field that takes it back.
 */
export function formatUsdcExact(wei: string | bigint): string {
  return exactly(unitsOf(wei));
}

/** An ETH amount (18 decimals) exactly, like {@link formatUsdcExact}. */
export function formatEthExact(wei: string | bigint): string {
  return exactly(unitsOf(wei, 18));
}

function exactly({ sign, whole, decimals }: ReturnType<typeof unitsOf>): string {
  return `${sign}${whole}.${decimals.replace(/0+$/, "").padEnd(2, "0")}`;
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
