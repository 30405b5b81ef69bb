/*
 * The values some text columns of schema.ts hold, so that drizzle types those columns. Only the
 * lists live here, below the domain that gives them their meaning: the rules over each are the
 * domain's (domain/offers/offer-state.ts, domain/proposals/proposal-status.ts,
 * domain/shared/reputation.ts), which export these lists again.
 */

/** app.offers.status: see domain/offers/offer-state.ts. */
export const OFFER_STATUSES = [
  "OPEN",
  "COUNTERED",
  "ACCEPTED",
  "PURCHASED",
  "DECLINED",
  "WITHDRAWN",
  "EXPIRED",
] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** app.offer_moves.action: what each recorded move of an offer was. */
export const OFFER_ACTIONS = [
  "made",
  "countered",
  "accepted",
  "declined",
  "withdrawn",
  "purchased",
  "expired",
] as const;
export type OfferAction = (typeof OFFER_ACTIONS)[number];

/** app.proposals.status: see domain/proposals/proposal-status.ts. */
export const PROPOSAL_STATUSES = ["PENDING", "ACCEPTED", "DECLINED", "WITHDRAWN"] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** app.agents.reputation_tier (kept): see domain/shared/reputation.ts. */
export const REPUTATION_TIERS = ["NEWCOMER", "RELIABLE", "TRUSTED", "VETERAN"] as const;
export type ReputationTier = (typeof REPUTATION_TIERS)[number];

/**
 * app.x402_payments.authorization: an x402 payment's EIP-3009 transfer authorization as the payer
 * signed it (domain/x402), with its amounts and times as decimal strings.
 */
export interface StoredTransferAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
  signature: string;
}

/** app.agent_spends.action and app.spending_approvals.action: see domain/wallet/spending-caps.ts. */
export const SPEND_ACTIONS = ["buy", "bounty", "transaction", "withdrawal", "x402"] as const;
export type SpendAction = (typeof SPEND_ACTIONS)[number];

/** app.spending_approvals.state: see domain/owners/spending-approvals.ts. */
export const APPROVAL_STATES = ["pending", "approved", "declined", "expired", "failed"] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];
