import { index, onchainTable, primaryKey } from "ponder";

/*
 * Tables the indexer writes. Ponder publishes each one as a view of the same name in schema
 * "chain" (`ponder start --views-schema chain`), which the API reads with plain SQL. Columns are
 * snake_case in Postgres. Every table carries `chain_id` so one database can hold several chains.
 *
 * Amounts are USDC wei (numeric(78)); times are unix seconds; hashes and addresses are lowercase
 * hex. The status and event kinds are the values of lib/escrow-mapping.ts.
 */

/** Current state of one escrow: the terms the contract hashed, plus each step's outcome. */
export const escrow = onchainTable(
  "escrow",
  (t) => ({
    chainId: t.integer().notNull(),
    /** The contract's bytes32 escrow id: escrowIdOf(buyer, ref), a hash of the buyer and the Funded ref. */
    id: t.hex().notNull(),
    /**
     * The API's transaction uuid when the Funded event's ref is one (see escrowRef), else null. Not
     * unique: anyone may fund any ref, so escrows of different buyers may share a uuid; the API's
     * escrow is the one at escrowIdOfTransaction(buyer, uuid).
     */
    uuid: t.text(),
    status: t.text().notNull(),
    // The terms, exactly as the contract hashes them (see termsOf in lib/escrow-mapping.ts).
    buyer: t.hex().notNull(),
    /** Zero address while a bounty has no seller. */
    seller: t.hex().notNull(),
    amount: t.bigint().notNull(),
    deadline: t.bigint().notNull(),
    disputeWindow: t.integer().notNull(),
    /** 0 until delivered. */
    deliveredAt: t.bigint().notNull(),
    feeBps: t.integer().notNull(),
    /** Funded without a seller: the operator may assign one. */
    isBounty: t.boolean().notNull(),
    deliverableHash: t.hex(),
    disputedBy: t.hex(),
    disputeReasonHash: t.hex(),
    disputedAt: t.bigint(),
    /** Arbiter's ruling: seller's share of the amount in basis points. */
    resolutionSellerBps: t.integer(),
    /** Paid to the seller (after the fee), to the buyer, and to the fee recipient at settlement. */
    sellerPayout: t.bigint(),
    buyerPayout: t.bigint(),
    feePaid: t.bigint(),
    /** Who triggered the release or refund (the keeper, a party, anyone after a time rule). */
    settledBy: t.hex(),
    settledAt: t.bigint(),
    fundedTxHash: t.hex().notNull(),
    fundedBlock: t.bigint().notNull(),
    fundedAt: t.bigint().notNull(),
    assignedTxHash: t.hex(),
    assignedBlock: t.bigint(),
    deliveredTxHash: t.hex(),
    deliveredBlock: t.bigint(),
    disputedTxHash: t.hex(),
    disputedBlock: t.bigint(),
    settledTxHash: t.hex(),
    settledBlock: t.bigint(),
    /** Block of the last change to this row. */
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.id] }),
    // Not unique: two buyers' escrows may carry the same uuid (see the column).
    uuidIdx: index().on(table.uuid),
    buyerIdx: index().on(table.buyer),
    sellerIdx: index().on(table.seller),
    statusIdx: index().on(table.status, table.deadline),
    // The API's figures by day and period (/api/stats/daily, /api/leaderboard) read a time range.
    settledAtIdx: index().on(table.chainId, table.settledAt),
    fundedAtIdx: index().on(table.chainId, table.fundedAt),
  }),
);

/** The timeline: one row per escrow-contract log, in chain order. */
export const escrowEvent = onchainTable(
  "escrow_event",
  (t) => ({
    chainId: t.integer().notNull(),
    /** Ponder's event id: sorts in chain order. */
    id: t.text().notNull(),
    kind: t.text().notNull(),
    /** Null for credit events, which name an account, not an escrow. */
    escrowId: t.hex(),
    /** Who acted: the buyer (FUNDED), the seller (DELIVERED), the disputant, the caller of release or
     * refund, the credited account; the transaction's sender for SELLER_ASSIGNED and RESOLVED. */
    actor: t.hex().notNull(),
    /** The escrowed amount (FUNDED), the seller's payout (RELEASED, RESOLVED), the refund, the credit. */
    amount: t.bigint(),
    buyerAmount: t.bigint(),
    fee: t.bigint(),
    /** Seller assigned, deliverable hash, dispute reason hash, ruling in bps: the event's own datum. */
    seller: t.hex(),
    dataHash: t.hex(),
    sellerBps: t.integer(),
    txHash: t.hex().notNull(),
    txFrom: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    blockTimestamp: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.id] }),
    escrowIdx: index().on(table.escrowId, table.blockNumber, table.logIndex),
    txIdx: index().on(table.txHash),
  }),
);

/** On-chain track record of one address, as buyer and as seller. */
export const accountStats = onchainTable(
  "account_stats",
  (t) => ({
    chainId: t.integer().notNull(),
    address: t.hex().notNull(),
    escrowsAsBuyer: t.integer().notNull(),
    escrowsAsSeller: t.integer().notNull(),
    releasedAsBuyer: t.integer().notNull(),
    releasedAsSeller: t.integer().notNull(),
    refundedAsBuyer: t.integer().notNull(),
    refundedAsSeller: t.integer().notNull(),
    disputedAsBuyer: t.integer().notNull(),
    disputedAsSeller: t.integer().notNull(),
    resolvedAsBuyer: t.integer().notNull(),
    resolvedAsSeller: t.integer().notNull(),
    /** Buyer's money that went to the seller side (seller payout + fee) at release or ruling. */
    volumeAsBuyer: t.bigint().notNull(),
    /** The same flow seen from the seller (payout + fee). */
    volumeAsSeller: t.bigint().notNull(),
    /** What the seller actually received (after fees). */
    earned: t.bigint().notNull(),
    /** Returned to the buyer by refunds and rulings. */
    refundedToBuyer: t.bigint().notNull(),
    /** Still held in escrow for this buyer. */
    lockedAsBuyer: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
    /**
     * The id of the newest escrow event naming this account as buyer or seller (any kind, DELIVERED
     * too): the API keeps each agent's profile until this moves (api/src/domain/reads/kept-profiles.ts).
     */
    lastEvent: t.text().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.chainId, table.address] }) }),
);

/** Payouts the token refused (a blacklisted payee), owed until the account withdraws them. */
export const credit = onchainTable(
  "credit",
  (t) => ({
    chainId: t.integer().notNull(),
    account: t.hex().notNull(),
    /** What the contract's creditOf(account) returns. */
    owed: t.bigint().notNull(),
    totalCredited: t.bigint().notNull(),
    totalWithdrawn: t.bigint().notNull(),
    /** The escrow whose payout was credited last. */
    lastEscrowId: t.hex(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.chainId, table.account] }) }),
);

/** Marketplace-wide figures per chain. */
export const escrowTotals = onchainTable("escrow_totals", (t) => ({
  chainId: t.integer().primaryKey(),
  escrows: t.integer().notNull(),
  released: t.integer().notNull(),
  refunded: t.integer().notNull(),
  resolved: t.integer().notNull(),
  disputed: t.integer().notNull(),
  /** Sum of all funded amounts. */
  fundedVolume: t.bigint().notNull(),
  /** Seller side of settled escrows (payouts + fees). */
  settledVolume: t.bigint().notNull(),
  feesCollected: t.bigint().notNull(),
  /** USDC the contract holds for open escrows. */
  locked: t.bigint().notNull(),
  /** Sum of unwithdrawn credits: the contract's totalCredits(). */
  credits: t.bigint().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** The escrow contract's settings: fee, fee recipient, arbiter, operator. */
export const escrowSettings = onchainTable("escrow_settings", (t) => ({
  chainId: t.integer().primaryKey(),
  address: t.hex().notNull(),
  feeBps: t.integer().notNull(),
  feeRecipient: t.hex().notNull(),
  arbiter: t.hex().notNull(),
  operator: t.hex().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/**
 * Which escrow the transaction settled last. Credited carries no escrow id, but it follows the
 * Released, Refunded or Resolved log whose payout the token refused, in the same transaction.
 */
export const txEscrow = onchainTable(
  "tx_escrow",
  (t) => ({
    chainId: t.integer().notNull(),
    txHash: t.hex().notNull(),
    escrowId: t.hex().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.chainId, table.txHash] }) }),
);

/** ERC-8004 identities: one row per agent id of the IdentityRegistry. */
export const erc8004Agent = onchainTable(
  "erc8004_agent",
  (t) => ({
    chainId: t.integer().notNull(),
    agentId: t.bigint().notNull(),
    owner: t.hex().notNull(),
    agentUri: t.text().notNull(),
    /** The verified payment wallet (the registry's reserved "agentWallet" metadata), null when unset. */
    agentWallet: t.hex(),
    registeredTxHash: t.hex().notNull(),
    registeredBlock: t.bigint().notNull(),
    registeredAt: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.agentId] }),
    ownerIdx: index().on(table.owner),
  }),
);

/** ERC-8004 feedback given to an agent through the ReputationRegistry. */
export const erc8004Feedback = onchainTable(
  "erc8004_feedback",
  (t) => ({
    chainId: t.integer().notNull(),
    agentId: t.bigint().notNull(),
    client: t.hex().notNull(),
    feedbackIndex: t.bigint().notNull(),
    value: t.bigint().notNull(),
    valueDecimals: t.integer().notNull(),
    tag1: t.text().notNull(),
    tag2: t.text().notNull(),
    endpoint: t.text().notNull(),
    feedbackUri: t.text().notNull(),
    feedbackHash: t.hex().notNull(),
    revoked: t.boolean().notNull(),
    txHash: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    blockTimestamp: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.chainId, table.agentId, table.client, table.feedbackIndex] }),
    agentIdx: index().on(table.agentId),
  }),
);
