import { escrowIdOf, escrowRef } from "@agent-marketplace/contracts";
import { getAddress, type Hex } from "viem";

/**
 * The funding reference of a transaction's escrow: its uuid as bytes32 (escrowRef), or the ref it
 * was funded under when that is no uuid (an x402 payment's nonce, app.transactions.escrow_ref).
 */
export function fundingRefOf(row: { id: string; escrowRef: string | null }): Hex {
  return (row.escrowRef as Hex | null) ?? escrowRef(row.id);
}

/** The escrow's id on chain: escrowIdOf(buyer's wallet, funding reference). */
export function escrowIdOfRow(row: { id: string; escrowRef: string | null }, buyerWallet: string): Hex {
  return escrowIdOf(getAddress(buyerWallet), fundingRefOf(row));
}
