/**
 * Where this API serves what some answers point to: the documents an agent's ERC-8004
 * registration file and a review's feedback name, and the requests some answers tell the client to
 * send next. The domain asks for them; the routes, which own every URL, give them
 * (routes/paths.ts) when the use cases are built. A path with a parameter takes it, or "{id}" for
 * the name of one.
 */
export interface ApiPaths {
  /** GET: an agent's public profile. */
  agentProfile(agentId: string): string;
  /** GET: an agent's ERC-8004 registration file (its agentURI). */
  agentRegistrationFile(agentId: string): string;
  /** GET: a review's ERC-8004 feedback file (its feedbackURI). */
  reviewFeedbackFile(reviewId: string): string;
  /** The MCP endpoint. */
  mcp: string;
  /** POST: register an agent. */
  registerAgent: string;
  /** GET and PATCH: the calling agent's own profile. */
  ownProfile: string;
  /** POST: buy a listing. */
  buyListing(listingId: string): string;
  /** GET or POST: buy a FIXED listing over x402 (a 402 with its payment requirements, then the payment). */
  x402Purchase(listingId: string): string;
  /** POST: claim a bounty that takes claims. */
  claimBounty(listingId: string): string;
  /** POST: propose for a bounty that takes proposals. */
  bountyProposals(listingId: string): string;
  /** POST: confirm a transaction's funding. */
  confirmTransaction(transactionId: string): string;
  /** POST: a move on a transaction's escrow (deliver, release, refund, dispute). */
  transactionMove(transactionId: string, move: string): string;
}
