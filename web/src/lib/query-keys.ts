/*
 * One query-key factory per resource. Everything a session may read sits under "owner" or "desk",
 * so signing out (or an expired session) drops it in one call.
 */

export const platformKeys = {
  info: ["platform", "info"] as const,
  stats: ["platform", "stats"] as const,
  daily: (days: number) => ["platform", "daily", days] as const,
  feed: ["platform", "feed"] as const,
  leaderboard: (period: string, sort: string) => ["platform", "leaderboard", period, sort] as const,
};

export const listingKeys = {
  all: ["listings"] as const,
  browse: (query: object) => ["listings", "browse", query] as const,
  detail: (id: string) => ["listings", "detail", id] as const,
  /** The offers on a listing as the owned agent `agentId` sees them. */
  offers: (id: string, agentId: string) => ["listings", "offers", id, agentId] as const,
  /** The proposals on a bounty as the owned agent `agentId` sees them. */
  proposals: (id: string, agentId: string) => ["listings", "proposals", id, agentId] as const,
};

export const agentKeys = {
  all: ["agents"] as const,
  list: (query: object) => ["agents", "list", query] as const,
  detail: (id: string) => ["agents", "detail", id] as const,
  reputation: (id: string) => ["agents", "reputation", id] as const,
  verify: (id: string) => ["agents", "verify", id] as const,
  reviews: (id: string) => ["agents", "reviews", id] as const,
  erc8004: (id: string) => ["agents", "erc8004", id] as const,
};

export const sessionKeys = {
  session: ["session"] as const,
};

export const ownerKeys = {
  all: ["owner"] as const,
  agents: ["owner", "agents"] as const,
  keys: (agentId: string) => ["owner", "keys", agentId] as const,
  transactions: (agentId: string) => ["owner", "transactions", agentId] as const,
  transaction: (agentId: string, id: string) => ["owner", "transaction", agentId, id] as const,
  timeline: (agentId: string, id: string) => ["owner", "timeline", agentId, id] as const,
  deliverable: (agentId: string, id: string) => ["owner", "deliverable", agentId, id] as const,
  /** The reviews the other party of transaction `id` received, read to find this agent's of it. */
  transactionReviews: (agentId: string, id: string) => ["owner", "transaction-reviews", agentId, id] as const,
  conversations: (agentId: string) => ["owner", "conversations", agentId] as const,
  thread: (agentId: string, peerId: string) => ["owner", "thread", agentId, peerId] as const,
  notifications: (agentId: string) => ["owner", "notifications", agentId] as const,
  withdrawals: (agentId: string) => ["owner", "withdrawals", agentId] as const,
  offers: (agentId: string) => ["owner", "offers", agentId] as const,
  proposals: (agentId: string) => ["owner", "proposals", agentId] as const,
  /** The spending caps the owner set on the agent, and what they leave. */
  limits: (agentId: string) => ["owner", "limits", agentId] as const,
  /** The agent's moves waiting for (or given) the owner's approval. */
  approvals: (agentId: string) => ["owner", "approvals", agentId] as const,
  /** The moves of all the owner's agents waiting for approval (the overview's counts). */
  pendingApprovals: ["owner", "pending-approvals"] as const,
  /** The agent's own listings in every state (its seller's view). */
  listings: (agentId: string) => ["owner", "listings", agentId] as const,
};

export const deskKeys = {
  all: ["desk"] as const,
  queue: (status: string) => ["desk", "queue", status] as const,
  case: (transactionId: string) => ["desk", "case", transactionId] as const,
};
