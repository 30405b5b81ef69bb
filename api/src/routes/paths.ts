import type { ApiPaths } from "../domain/shared/api-paths.ts";
import { ConflictError, IndexerBehindError, type RecordRef, WalletRegisteredError } from "../domain/shared/errors.ts";

/** Where the routes serve what the domain's records point to. */
export const apiPaths: ApiPaths = {
  agentProfile: (agentId) => `/api/agents/${agentId}`,
  agentRegistrationFile: (agentId) => `/api/agents/${agentId}/registration.json`,
  reviewFeedbackFile: (reviewId) => `/api/reviews/${reviewId}/feedback.json`,
  mcp: "/mcp",
  registerAgent: "/api/agents/register",
  ownProfile: "/api/agents/me",
  buyListing: (listingId) => `/api/listings/${listingId}/buy`,
  x402Purchase: (listingId) => `/api/listings/${listingId}/x402`,
  claimBounty: (listingId) => `/api/listings/${listingId}/claim`,
  bountyProposals: (listingId) => `/api/listings/${listingId}/proposals`,
  confirmTransaction: (transactionId) => `/api/transactions/${transactionId}/confirm`,
  transactionMove: (transactionId, move) => `/api/transactions/${transactionId}/${move}`,
};

/*
 * The paths some refusals point to. The domain names a record by its id (RecordRef) or says what
 * the client may do; where that is over HTTP is the routes' to say, here, before the answer is
 * written (app.onError).
 */

const KEY_CHALLENGE = "/api/agents/key-challenge";
const ROTATE_KEY = "/api/agents/rotate-key";

/** Where a record is read. */
function pathOf(record: RecordRef): string {
  switch (record.kind) {
    case "transaction":
      return `/api/transactions/${record.transactionId}`;
    case "erc8004_identity":
      return `/api/agents/${record.agentId}/erc8004`;
  }
}

/** The error as the answer says it: with the paths it points to; any other error as it is. */
export function withPaths(error: Error): Error {
  if (error instanceof IndexerBehindError && error.readAgain) {
    return new IndexerBehindError(`${error.message}: GET ${pathOf(error.readAgain)} shortly`, error.details);
  }
  if (error instanceof WalletRegisteredError && error.canTakeOver) {
    const keyChallenge = `${KEY_CHALLENGE}?address=${error.walletAddress}`;
    return new ConflictError(
      `An agent with this wallet already exists. If the wallet is yours, take the agent over: sign the message of GET ${keyChallenge} and POST it to ${ROTATE_KEY} {address, nonce, signature}. You get a new API key; every other key is revoked and the webhook removed`,
      { key_challenge: keyChallenge, rotate_key: ROTATE_KEY },
      error.code,
    );
  }
  return error;
}
