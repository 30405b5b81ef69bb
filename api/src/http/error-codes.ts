import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every `code` the API answers an error with, and the one HTTP status each is answered with: the
 * only table of both. `onError` (http/errors.ts) answers a refusal with its code's status, and the
 * OpenAPI document's error schema lists these codes (`code` is a closed enum). Clients branch on the
 * strings: add codes, never rename or drop one. A code thrown anywhere must be here
 * (error-codes.test.ts reads the source for them).
 */
export const ERROR_STATUS = {
  // The request is wrong whatever the state.
  bad_request: 400,
  /** A parameter, query or body failed its schema; `issues` names each field. */
  invalid_request: 400,
  /** A string Postgres cannot hold (U+0000, a lone surrogate). */
  invalid_characters: 400,
  /** JSON nested too deep. */
  too_deep: 400,
  /** A wallet address that is one of the platform's own. */
  reserved_address: 400,
  // A tx_hash handed in as proof of an ERC-8004 registration that does not prove it.
  tx_reverted: 400,
  tx_not_found: 400,
  not_a_registration: 400,
  wrong_owner: 400,
  wrong_agent_uri: 400,
  /** x402: a PAYMENT-REQUIRED a hosted agent asked the service to sign offers nothing it can pay (USDC on this chain, exact, EIP-3009). */
  x402_unpayable: 400,

  unauthorized: 401,
  insufficient_balance: 402,
  /** x402: pay with the PAYMENT-REQUIRED header's requirements (its `accepts`), then ask again. */
  payment_required: 402,
  /** x402: the payment presented was refused (`reason`); PAYMENT-REQUIRED says what to pay. */
  payment_invalid: 402,
  /** A hosted agent's move over a spending cap its owner set (`limit`, `limit_wei`, `spent_wei`, `remaining_wei`). */
  spending_limit: 402,

  forbidden: 403,
  /** A write signed in by cookie without this site's CSRF header or origin. */
  csrf_failed: 403,
  /** The dev wallet, asked from another site's page. */
  foreign_origin: 403,

  not_found: 404,

  // The state does not allow this now.
  conflict: 409,
  price_changed: 409,
  already_ruled: 409,
  ruling_in_progress: 409,
  bounty_takes_claims: 409,
  bounty_takes_proposals: 409,
  offer_closed: 409,
  offer_exists: 409,
  offer_mismatch: 409,
  offer_not_accepted: 409,
  offer_not_your_turn: 409,
  proposal_closed: 409,
  /** An owner's approval that was decided already, or expired: only a pending one is approved or declined. */
  approval_closed: 409,
  proposal_exists: 409,
  /** The proposal asks another price than the bounty's reward, which is in escrow already. */
  proposal_price_differs: 409,
  /** The listing was deactivated (or its bounty refunded): it cannot be listed again. */
  listing_closed: 409,
  wallet_registered: 409,
  webhook_not_set: 409,
  withdrawal_refused: 409,
  funding_refused: 409,
  funding_reverted: 409,
  move_reverted: 409,
  reservation_lapsed: 409,
  /** A request with this Idempotency-Key is running, or was interrupted after money may have moved. */
  idempotency_key_in_progress: 409,

  payload_too_large: 413,
  /**
   * Hono refused the request with a status of its own, answered with that status: a body that is
   * not of the route's media type (415 Unsupported Media Type) is the one known.
   */
  http_error: 415,
  /** This Idempotency-Key was used with another request. */
  idempotency_key_reused: 422,

  rate_limited: 429,
  too_many_streams: 429,

  internal: 500,
  /** A transaction the service sent to a third-party registry reverted. */
  registration_reverted: 502,

  /** The write is on chain but the indexer has not reached its block: read again shortly. */
  indexer_behind: 503,
  /** A payment's settlement was sent and is not mined yet: present the same payment again shortly. */
  settlement_pending: 503,
  /** The database's pool had no connection to give in time. */
  busy: 503,
  chain_unavailable: 503,
  database_unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The codes, in the table's order (the error schema's enum). */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}
