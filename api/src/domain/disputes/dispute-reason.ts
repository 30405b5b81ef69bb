import { type Hex, keccak256, toBytes } from "viem";

/*
 * A dispute's reason off chain and on: the chain keeps only the keccak256 of the words, we keep the
 * words. Words are shown only when they are the ones the chain holds the hash of.
 */

/** What a dispute commits to on chain: the keccak256 of its reason's UTF-8 bytes. */
export function disputeReasonHash(reason: string): Hex {
  return keccak256(toBytes(reason));
}

/** The stored reason when it is the one the chain holds the hash of; null otherwise (or none). */
export function reasonOnChain(reason: string | null, onChainHash: string | null): string | null {
  if (reason === null || !onChainHash) return null;
  return disputeReasonHash(reason) === onChainHash.toLowerCase() ? reason : null;
}
