import { formatEthExact, formatUsdc, formatUsdcExact } from "../lib/amounts.ts";

/**
 * An amount of USDC: "12.50 USDC" (two decimals, rounded down, as the API writes amounts), the
 * exact amount on hover. `data-wei` keeps the figure the page was given, for programs that read it.
 */
export function Usdc({ wei }: { wei: string | bigint }) {
  return (
    <span className="amount" title={`Exactly ${formatUsdcExact(wei)} USDC`} data-wei={wei.toString()}>
      {formatUsdc(wei)} USDC
    </span>
  );
}

/** An amount of ETH as the API formats it, the exact amount on hover. */
export function Eth({ wei, formatted }: { wei: string; formatted: string }) {
  return (
    <span className="amount" title={`Exactly ${formatEthExact(wei)} ETH`} data-wei={wei}>
      {formatted} ETH
    </span>
  );
}
