import type { PaymentRequired, PaymentRequirements, ResourceInfo } from "@x402/core/types";

/*
 * The x402 v2 payment requirements of a FIXED listing: USDC on this chain, exactly the listing's
 * price, paid to the escrow contract (which the relayer's fundWithTransfer turns into this
 * listing's escrow), with USDC's EIP-712 name and version in `extra` (the stock exact-scheme client
 * signs over them) and what identifies the listing and the escrow's terms. Pure: the use case
 * reads the listing and the token.
 */

/** The x402 protocol version these requirements and answers speak. */
export const X402_VERSION = 2;

/**
 * How long a payment's authorization may stay valid (the stock client signs validBefore = now +
 * this): the settlement is sent as the paid request arrives, so five minutes cover a slow client.
 */
export const MAX_TIMEOUT_SECONDS = 300;

/**
 * How far past now + MAX_TIMEOUT_SECONDS an authorization's validBefore may lie (clocks differ): an
 * authorization valid longer than that is refused, as one a client was not asked for.
 */
export const VALID_BEFORE_SLACK_SECONDS = 60;

/** What the requirements are made from: the listing, its seller, the chain, the token, the escrow. */
export interface RequirementsInput {
  chainId: number;
  usdc: string;
  escrow: string;
  token: { name: string; version: string };
  listing: { id: string; priceWei: string; title: string };
  sellerWallet: string;
  deadlineHours: number;
  disputeWindowSeconds: number;
}

/** The CAIP-2 network of an EVM chain, as x402 names it. */
export function networkOf(chainId: number): `eip155:${number}` {
  return `eip155:${chainId}`;
}

export function paymentRequirements(input: RequirementsInput): PaymentRequirements {
  return {
    scheme: "exact",
    network: networkOf(input.chainId),
    asset: input.usdc,
    amount: input.listing.priceWei,
    payTo: input.escrow,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: {
      name: input.token.name,
      version: input.token.version,
      listingId: input.listing.id,
      seller: input.sellerWallet,
      deadlineHours: input.deadlineHours,
      disputeWindowSeconds: input.disputeWindowSeconds,
    },
  };
}

/** The 402 answer's PaymentRequired: these requirements for `resource`, and why it is asked again. */
export function paymentRequired(
  requirements: PaymentRequirements,
  resource: ResourceInfo,
  error: string,
): PaymentRequired {
  return { x402Version: X402_VERSION, error, resource, accepts: [requirements] };
}

/**
 * Why the requirements a payment says it accepted are not these, or undefined when they are:
 * every field equal, and `extra` holding at least ours (the rule of @x402/core's server,
 * `findMatchingRequirements`, which a stock client's echo of our requirements passes). The names
 * say which term differs, most telling first: a payment for another listing of the same price is
 * refused here (the signature binds the payee and the amount, not the listing).
 */
export function requirementsMismatch(ours: PaymentRequirements, accepted: PaymentRequirements): string | undefined {
  if (accepted.scheme !== ours.scheme) return "unsupported_scheme";
  if (accepted.network !== ours.network) return "network_mismatch";
  if (accepted.asset.toLowerCase() !== ours.asset.toLowerCase()) return "asset_mismatch";
  if (accepted.payTo.toLowerCase() !== ours.payTo.toLowerCase()) return "recipient_mismatch";
  const extra = accepted.extra ?? {};
  if (extra.listingId !== ours.extra.listingId) return "listing_mismatch";
  if (accepted.amount !== ours.amount) return "amount_mismatch";
  if (accepted.maxTimeoutSeconds !== ours.maxTimeoutSeconds) return "requirements_mismatch";
  for (const [key, value] of Object.entries(ours.extra)) {
    if (extra[key] !== value) return "requirements_mismatch";
  }
  return undefined;
}
