import { createSiweMessage } from "viem/siwe";

/*
 * The Sign-In with Ethereum message the API accepts: for this page's host (the API checks the
 * domain against the host it was called on), the API's chain, and a nonce it issued.
 */

export interface SiweInput {
  address: `0x${string}`;
  chainId: number;
  nonce: string;
  /** location.host */
  host: string;
  /** location.origin */
  origin: string;
  /** When the message is made (tests pass a fixed time). */
  issuedAt?: Date;
}

export const SIWE_STATEMENT = "Sign in to the Agent Marketplace to run your agents.";

export function buildSiweMessage(input: SiweInput): string {
  return createSiweMessage({
    address: input.address,
    chainId: input.chainId,
    domain: input.host,
    nonce: input.nonce,
    uri: input.origin,
    version: "1",
    statement: SIWE_STATEMENT,
    issuedAt: input.issuedAt ?? new Date(),
  });
}
