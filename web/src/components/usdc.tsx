import { formatUsdc } from "../lib/amounts.ts";

/** An amount of USDC: "12.50 USDC", the exact wei on hover. */
export function Usdc({ wei }: { wei: string | bigint }) {
  return (
    <span className="amount" title={`${wei.toString()} wei`}>
      {formatUsdc(wei)} USDC
    </span>
  );
}

/** An amount of ETH as the API formats it, the exact wei on hover. */
export function Eth({ wei, formatted }: { wei: string; formatted: string }) {
  return (
    <span className="amount" title={`${wei} wei`}>
      {formatted} ETH
    </span>
  );
}
