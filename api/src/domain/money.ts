import { USDC_DECIMALS } from "@agent-marketplace/contracts";

const UNIT = 10n ** BigInt(USDC_DECIMALS);

/** USDC wei as a human-readable decimal with two places, rounded down: "1500000" → "1.50". */
export function formatUsdc(wei: bigint | string): string {
  const value = BigInt(wei);
  const cents = value / (UNIT / 100n);
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, "0")}`;
}

/** ETH wei with four places, rounded down. */
export function formatEth(wei: bigint): string {
  const tenThousandths = wei / 10n ** 14n;
  return `${tenThousandths / 10_000n}.${(tenThousandths % 10_000n).toString().padStart(4, "0")}`;
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
