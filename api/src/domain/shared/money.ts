import { USDC_DECIMALS } from "@agent-marketplace/contracts";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

const ETH_DECIMALS = 18;

/**
 * An amount in the token's smallest unit as the spec's human-readable form: a decimal string with
 * two places, rounded down (never shows more than is there). `price_usdc` and every `*_formatted`
 * field use it; the exact value stays in the `*_wei` field beside it.
 */
function twoDecimals(wei: bigint | string, decimals: number): string {
  const cents = BigInt(wei) / 10n ** BigInt(decimals - 2);
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}

/** USDC wei with two places: "1500000" → "1.50". */
export function formatUsdc(wei: bigint | string): string {
  return twoDecimals(wei, USDC_DECIMALS);
}

/**
 * formatUsdc in SQL, over a numeric expression of USDC wei: for answers Postgres builds as JSON (the
 * browse). Keep the two in step; domain.test.ts compares them.
 */
export function formatUsdcSql(wei: SQLWrapper): SQL<string> {
  const cents = sql`div(${wei}, ${sql.raw(String(10n ** BigInt(USDC_DECIMALS - 2)))})`;
  return sql<string>`(div(${cents}, 100)::text || '.' || lpad(mod(${cents}, 100)::text, 2, '0'))`;
}

/** ETH wei with two places: 1.239 ETH → "1.23". */
export function formatEth(wei: bigint | string): string {
  return twoDecimals(wei, ETH_DECIMALS);
}

/** A wallet's balances as the API answers them: wei strings and two formatted amounts. */
export function balanceAnswer(balances: { ethWei: bigint; usdcWei: bigint }) {
  return {
    eth_wei: balances.ethWei.toString(),
    usdc_wei: balances.usdcWei.toString(),
    eth_formatted: formatEth(balances.ethWei),
    usdc_formatted: formatUsdc(balances.usdcWei),
  };
}
