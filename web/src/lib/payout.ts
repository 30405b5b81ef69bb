/*
 * The arbiter's split, as the escrow contract computes it: the seller's share is
 * amount × seller_bps / 10000 rounded down, the buyer gets the remainder (so nothing is lost to
 * rounding), and the platform fee comes out of the seller's share.
 */

export const BPS = 10_000;

export interface PayoutPreview {
  /** The seller's share before the platform fee. */
  sellerWei: bigint;
  /** What goes back to the buyer: the remainder. */
  buyerWei: bigint;
}

export function payoutPreview(amountWei: string | bigint, sellerBps: number): PayoutPreview {
  if (!Number.isInteger(sellerBps) || sellerBps < 0 || sellerBps > BPS) {
    throw new RangeError(`seller_bps must be a whole number from 0 to ${BPS}, not ${sellerBps}`);
  }
  const amount = typeof amountWei === "bigint" ? amountWei : BigInt(amountWei);
  const sellerWei = (amount * BigInt(sellerBps)) / BigInt(BPS);
  return { sellerWei, buyerWei: amount - sellerWei };
}

/** "70.00 %" for 7000 bps. */
export function formatBps(bps: number): string {
  return `${(bps / 100).toFixed(2)} %`;
}
