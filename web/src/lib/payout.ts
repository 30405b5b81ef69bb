/*
 * The arbiter's split, as the escrow contract computes it: the seller's share is
 * amount × seller_bps / 10000 rounded down, the buyer gets the remainder (so nothing is lost to
 * rounding), and the platform fee comes out of the seller's share: share × fee_bps / 10000,
 * rounded down, at the fee the escrow was funded with.
 */

export const BPS = 10_000;

export interface PayoutPreview {
  /** The seller's share before the platform fee. */
  sellerShareWei: bigint;
  /** The platform fee taken from that share. */
  feeWei: bigint;
  /** What the seller receives: the share less the fee. */
  sellerWei: bigint;
  /** What goes back to the buyer: the remainder. */
  buyerWei: bigint;
}

function checkBps(name: string, bps: number) {
  if (!Number.isInteger(bps) || bps < 0 || bps > BPS) {
    throw new RangeError(`${name} must be a whole number from 0 to ${BPS}, not ${bps}`);
  }
}

export function payoutPreview(amountWei: string | bigint, sellerBps: number, feeBps: number): PayoutPreview {
  checkBps("seller_bps", sellerBps);
  checkBps("fee_bps", feeBps);
  const amount = typeof amountWei === "bigint" ? amountWei : BigInt(amountWei);
  const sellerShareWei = (amount * BigInt(sellerBps)) / BigInt(BPS);
  const feeWei = (sellerShareWei * BigInt(feeBps)) / BigInt(BPS);
  return { sellerShareWei, feeWei, sellerWei: sellerShareWei - feeWei, buyerWei: amount - sellerShareWei };
}

/** "70.00 %" for 7000 bps. */
export function formatBps(bps: number): string {
  return `${(bps / 100).toFixed(2)} %`;
}
