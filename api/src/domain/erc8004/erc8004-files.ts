/*
 * The ERC-8004 off-chain files the marketplace serves for its agents: the registration file an
 * identity's agentURI resolves to, and the feedback file a review's feedbackURI names (its
 * keccak256 is the on-chain feedbackHash). Shapes follow EIP-8004 ("registration-v1"; the feedback
 * file's fields and `proofOfPayment`), plus marketplace fields the EIP allows.
 */

import type { ApiPaths } from "../shared/api-paths.ts";

export const REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1";

/** What the marketplace says it supports: feedback through the reputation registry. */
export const SUPPORTED_TRUST = ["reputation"] as const;

/**
 * Reviews go on chain as "starred" feedback: ERC-8004's quality rating from 0 to 100 with no
 * decimals. A rating of 1 to 5 stars is rating × 20 (5 stars: 100), so explorers that read the
 * tag's scale show it right. tag2 names where the feedback comes from.
 */
export const FEEDBACK_TAG1 = "starred";
export const FEEDBACK_TAG2 = "agent-marketplace";
export const FEEDBACK_VALUE_DECIMALS = 0;
export function feedbackValueOfRating(rating: number): bigint {
  return BigInt(rating * 20);
}

/** The URLs of an agent on this deployment. `base` has no trailing slash. */
export function agentUrls(base: string, agentId: string, paths: ApiPaths) {
  return {
    profile: base + paths.agentProfile(agentId),
    registrationFile: base + paths.agentRegistrationFile(agentId),
    mcp: base + paths.mcp,
  };
}

export function feedbackFileUrl(base: string, reviewId: string, paths: ApiPaths): string {
  return base + paths.reviewFeedbackFile(reviewId);
}

/** A token id as EIP-8004's JSON examples write it (a number), as a string past 2^53. */
export function jsonAgentId(agentId: bigint): number | string {
  return agentId <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(agentId) : agentId.toString();
}

/** An agent's image: an http(s) or ipfs URL under `image` in its metadata, if it set one. */
export function imageOf(metadata: Record<string, unknown>): string | undefined {
  const image = metadata.image;
  return typeof image === "string" && /^(https?|ipfs):\/\/\S+$/.test(image) && image.length <= 2_000
    ? image
    : undefined;
}

export interface RegistrationFile {
  type: typeof REGISTRATION_TYPE;
  name: string;
  description: string;
  image?: string;
  services: { name: string; endpoint: string; version?: string }[];
  x402Support: boolean;
  active: boolean;
  registrations: { agentId: number | string; agentRegistry: string }[];
  supportedTrust: string[];
}

export function registrationFile(input: {
  base: string;
  paths: ApiPaths;
  agent: { id: string; name: string; bio: string | null; metadata: Record<string, unknown>; active: boolean };
  /** The identity, once registered. */
  identity?: { agentId: bigint; agentRegistry: string };
  /** The agent's FIXED listings on the market: each is bought over x402 at its own endpoint. */
  x402Listings?: string[];
}): RegistrationFile {
  const { agent, identity, x402Listings = [] } = input;
  const urls = agentUrls(input.base, agent.id, input.paths);
  const image = imageOf(agent.metadata);
  return {
    type: REGISTRATION_TYPE,
    name: agent.name,
    description: agent.bio ?? "",
    ...(image && { image }),
    services: [
      { name: "API", endpoint: urls.profile },
      { name: "MCP", endpoint: urls.mcp },
      ...x402Listings.map((listingId) => ({
        name: "x402",
        endpoint: input.base + input.paths.x402Purchase(listingId),
        version: "2",
      })),
    ],
    // Its services take x402 payments (into the marketplace's escrow) when it sells any.
    x402Support: x402Listings.length > 0,
    active: agent.active,
    registrations: identity ? [{ agentId: jsonAgentId(identity.agentId), agentRegistry: identity.agentRegistry }] : [],
    supportedTrust: [...SUPPORTED_TRUST],
  };
}

export interface FeedbackFileInput {
  chainId: number;
  agentRegistry: string;
  /** The reviewed agent's identity. */
  agentId: bigint;
  /** The reviewer's wallet, which gives the feedback. */
  clientAddress: string;
  createdAt: Date;
  rating: number;
  comment: string | null;
  /** The reviewed agent's profile URL. */
  endpoint: string;
  review: { id: string; transactionId: string };
  /** The escrow whose release paid for the reviewed work. */
  payment: { buyer: string; seller: string; escrowContract: string; escrowId: string; releaseTxHash: string };
}

/**
 * The feedback file's exact text: the bytes served at the feedbackURI and hashed into feedbackHash.
 * Key order is fixed here, so the same review always gives the same bytes.
 */
export function feedbackFileText(input: FeedbackFileInput): string {
  const file = {
    agentRegistry: input.agentRegistry,
    agentId: jsonAgentId(input.agentId),
    clientAddress: `eip155:${input.chainId}:${input.clientAddress}`,
    createdAt: input.createdAt.toISOString(),
    value: Number(feedbackValueOfRating(input.rating)),
    valueDecimals: FEEDBACK_VALUE_DECIMALS,
    tag1: FEEDBACK_TAG1,
    tag2: FEEDBACK_TAG2,
    endpoint: input.endpoint,
    proofOfPayment: {
      fromAddress: input.payment.buyer,
      toAddress: input.payment.seller,
      chainId: String(input.chainId),
      txHash: input.payment.releaseTxHash,
    },
    agentMarketplace: {
      reviewId: input.review.id,
      transactionId: input.review.transactionId,
      rating: input.rating,
      comment: input.comment,
      escrowContract: input.payment.escrowContract,
      escrowId: input.payment.escrowId,
    },
  };
  return JSON.stringify(file);
}
