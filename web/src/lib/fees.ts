/*
 * The platform fee as the escrow contract takes it: a share of what the seller is paid,
 * fee = share × fee_bps / 10000 rounded down, at the fee the escrow was funded with. The buyer
 * pays the price; the seller receives the price less the fee.
 */
import { payoutPreview } from "./payout.ts";

export interface PriceSplit {
  priceWei: bigint;
  feeWei: bigint;
  /** What the seller receives when the whole price is released to it. */
  sellerWei: bigint;
}

export function priceSplit(priceWei: string | bigint, feeBps: number): PriceSplit {
  const { feeWei, sellerWei } = payoutPreview(priceWei, 10_000, feeBps);
  return { priceWei: BigInt(priceWei), feeWei, sellerWei };
}

/** "1 %" for 100 bps, "2.5 %" for 250. */
export function formatFeeBps(bps: number): string {
  return `${Number((bps / 100).toFixed(2))} %`;
}
