import { bigint, boolean, integer, numeric, pgSchema, text } from "drizzle-orm/pg-core";

/**
 * The indexer's views (schema "chain", see indexer/ponder.schema.ts), as drizzle reads them. The
 * API never writes them. numeric columns come back as strings.
 */
export const chain = pgSchema("chain");

const wei = (name: string) => numeric(name, { precision: 78, scale: 0 });

export const chainEscrow = chain
  .view("escrow", {
    chainId: integer("chain_id").notNull(),
    id: text("id").notNull(),
    uuid: text("uuid"),
    status: text("status").notNull(),
    buyer: text("buyer").notNull(),
    seller: text("seller").notNull(),
    amount: wei("amount").notNull(),
    deadline: wei("deadline").notNull(),
    disputeWindow: integer("dispute_window").notNull(),
    deliveredAt: wei("delivered_at").notNull(),
    feeBps: integer("fee_bps").notNull(),
    isBounty: boolean("is_bounty").notNull(),
    deliverableHash: text("deliverable_hash"),
    disputedBy: text("disputed_by"),
    disputeReasonHash: text("dispute_reason_hash"),
    disputedAt: wei("disputed_at"),
    resolutionSellerBps: integer("resolution_seller_bps"),
    sellerPayout: wei("seller_payout"),
    buyerPayout: wei("buyer_payout"),
    feePaid: wei("fee_paid"),
    settledBy: text("settled_by"),
    settledAt: wei("settled_at"),
    fundedTxHash: text("funded_tx_hash").notNull(),
    fundedBlock: wei("funded_block").notNull(),
    fundedAt: wei("funded_at").notNull(),
    assignedTxHash: text("assigned_tx_hash"),
    deliveredTxHash: text("delivered_tx_hash"),
    disputedTxHash: text("disputed_tx_hash"),
    settledTxHash: text("settled_tx_hash"),
  })
  .existing();

export const chainAccountStats = chain
  .view("account_stats", {
    chainId: integer("chain_id").notNull(),
    address: text("address").notNull(),
    escrowsAsBuyer: integer("escrows_as_buyer").notNull(),
    escrowsAsSeller: integer("escrows_as_seller").notNull(),
    releasedAsBuyer: integer("released_as_buyer").notNull(),
    releasedAsSeller: integer("released_as_seller").notNull(),
    refundedAsBuyer: integer("refunded_as_buyer").notNull(),
    refundedAsSeller: integer("refunded_as_seller").notNull(),
    disputedAsBuyer: integer("disputed_as_buyer").notNull(),
    disputedAsSeller: integer("disputed_as_seller").notNull(),
    resolvedAsBuyer: integer("resolved_as_buyer").notNull(),
    resolvedAsSeller: integer("resolved_as_seller").notNull(),
    volumeAsBuyer: wei("volume_as_buyer").notNull(),
    volumeAsSeller: wei("volume_as_seller").notNull(),
    earned: wei("earned").notNull(),
    refundedToBuyer: wei("refunded_to_buyer").notNull(),
    lockedAsBuyer: wei("locked_as_buyer").notNull(),
    /** The newest escrow event naming the account as buyer or seller (domain/reads/kept-profiles.ts). */
    lastEvent: text("last_event").notNull(),
  })
  .existing();

export const chainCheckpoint = chain
  .view("_ponder_checkpoint", {
    chainName: text("chain_name").notNull(),
    chainId: bigint("chain_id", { mode: "number" }).notNull(),
    latestCheckpoint: text("latest_checkpoint").notNull(),
  })
  .existing();

/** ERC-8004 identities of the IdentityRegistry (see indexer/src/Erc8004.ts). Addresses lowercase. */
export const chainErc8004Agent = chain
  .view("erc8004_agent", {
    chainId: integer("chain_id").notNull(),
    agentId: wei("agent_id").notNull(),
    owner: text("owner").notNull(),
    agentUri: text("agent_uri").notNull(),
    /** The registry's verified payment wallet ("agentWallet" metadata), null when unset. */
    agentWallet: text("agent_wallet"),
    registeredTxHash: text("registered_tx_hash").notNull(),
    registeredBlock: wei("registered_block").notNull(),
    registeredAt: wei("registered_at").notNull(),
  })
  .existing();

/** ERC-8004 feedback given through the ReputationRegistry, one row per (agent, client, index). */
export const chainErc8004Feedback = chain
  .view("erc8004_feedback", {
    chainId: integer("chain_id").notNull(),
    agentId: wei("agent_id").notNull(),
    client: text("client").notNull(),
    feedbackIndex: wei("feedback_index").notNull(),
    value: wei("value").notNull(),
    valueDecimals: integer("value_decimals").notNull(),
    tag1: text("tag1").notNull(),
    tag2: text("tag2").notNull(),
    endpoint: text("endpoint").notNull(),
    feedbackUri: text("feedback_uri").notNull(),
    feedbackHash: text("feedback_hash").notNull(),
    revoked: boolean("revoked").notNull(),
    txHash: text("tx_hash").notNull(),
    blockNumber: wei("block_number").notNull(),
  })
  .existing();
