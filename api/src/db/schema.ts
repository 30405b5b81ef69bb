import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  numeric,
  pgSchema,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type {
  ApprovalState,
  OfferAction,
  OfferStatus,
  ProposalStatus,
  ReputationTier,
  SpendAction,
  StoredTransferAuthorization,
} from "./column-values.ts";

/**
 * Schema "app": what the API owns. On-chain state is never stored here; it is read from the
 * indexer's views in schema "chain" (see chain-views.ts). Amounts are numeric(78,0) wei.
 */
export const app = pgSchema("app");

const wei = (name: string) => numeric(name, { precision: 78, scale: 0 });
const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
/** Text compared byte by byte: a range [word, word with its last letter's next) holds exactly the words it starts. */
const byteText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

export const agents = app.table(
  "agents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    /** Checksummed. External agents bring it; hosted agents get a custodial one. */
    walletAddress: text("wallet_address").notNull(),
    hosted: boolean("hosted").notNull(),
    /** Hosted agents only: the wallet's private key, AES-256-GCM with the master key. */
    encryptedPrivateKey: text("encrypted_private_key"),
    /** Hosted agents: the wallet (lowercase) whose Sign-In with Ethereum session may act for it. */
    ownerAddress: text("owner_address"),
    bio: text("bio"),
    skills: text("skills").array().notNull().default(sql`'{}'::text[]`),
    referralSource: text("referral_source"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    isActive: boolean("is_active").notNull().default(true),
    isPaused: boolean("is_paused").notNull().default(false),
    webhookUrl: text("webhook_url"),
    /** The key webhooks are signed with (HMAC-SHA256), AES-256-GCM with the master key; shown once. */
    webhookSecretEncrypted: text("webhook_secret_encrypted"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    // ERC-8004 identity (migration "erc8004"): the agent's token in the IdentityRegistry.
    /** The token id, once its registration is mined (hosted) or verified (external). */
    erc8004AgentId: numeric("erc8004_agent_id", { precision: 78, scale: 0 }),
    /**
     * The `register` transaction. A hosted agent's is recorded when it is signed, before its
     * receipt: a second request finds it and waits for it instead of registering twice.
     */
    erc8004TxHash: text("erc8004_tx_hash"),
    /**
     * The tier of the agent's indexed record (domain/shared/reputation.ts), kept for the listing cards that
     * name it (domain/reads/kept-tiers.ts): browse reads it instead of working it out per listing.
     */
    reputationTier: text("reputation_tier").$type<ReputationTier>().notNull().default("NEWCOMER"),
    /**
     * The rated deals and the success rate (integer percent, 0 without a rated deal) of the
     * agent's kept record, kept beside its tier for the same reason: browse cards show them
     * (domain/shared/reputation.ts states the rule, domain/reads/kept-tiers.ts keeps them).
     */
    ratedDeals: integer("rated_deals").notNull().default(0),
    successPercent: integer("success_percent").notNull().default(0),
    /** Whether the agent is told of new bounties that match its skills (`bounty.matching`); it may opt out. */
    notifyMatchingBounties: boolean("notify_matching_bounties").notNull().default(true),
    /**
     * Made by the service for the wallet that paid an x402 payment (domain/x402/x402-buyers.ts): an
     * external agent with no API key, left out of the directory, until its wallet's holder takes it
     * over with the key challenge (which clears this).
     */
    x402Payer: boolean("x402_payer").notNull().default(false),
  },
  (t) => [
    uniqueIndex("agents_wallet_address_key").on(sql`lower(${t.walletAddress})`),
    index("agents_created_at_idx").on(t.createdAt, t.id),
    index("agents_owner_address_idx").on(t.ownerAddress),
    // The skills as bounty matching compares them (domain/listings/bounty-matching.ts): lowercase,
    // `&&` the bounty's words; app.lower_skills is created by the migration "bounty_matching".
    index("agents_skills_match_idx").using("gin", sql`app.lower_skills(${t.skills})`),
  ],
);

/** API keys: only their SHA-256 is kept. Rotation revokes the old key. */
export const apiKeys = app.table(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    keyHash: text("key_hash").notNull(),
    /** The key's first 8 hex characters, for people to tell their keys apart (null for keys older than it). */
    prefix: text("prefix"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** When a request last carried the key, to the minute (written at most once a minute). */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("api_keys_key_hash_key").on(t.keyHash), index("api_keys_agent_id_idx").on(t.agentId)],
);

/** One-time nonces an external agent signs with its wallet to get a new key. */
export const keyChallenges = app.table("key_challenges", {
  nonce: text("nonce").primaryKey(),
  walletAddress: text("wallet_address").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
});

export const listings = app.table(
  "listings",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    title: text("title").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    listingType: text("listing_type").notNull(),
    priceWei: wei("price_wei").notNull(),
    isNegotiable: boolean("is_negotiable").notNull().default(true),
    isActive: boolean("is_active").notNull().default(true),
    /**
     * When it closed for good: its seller deactivated it (DELETE), or a bounty's reward went back
     * to its poster at its expiry. A closed listing is never listed again (is_active stays false);
     * one only paused (PATCH is_active false) has none and may be resumed.
     */
    closedAt: timestamp("closed_at", { withTimezone: true }),
    /**
     * Whether its seller is active and not paused: a copy of the agent's two flags, kept by a trigger
     * on app.agents (migration 0019), so that browsing filters and sorts listings without joining
     * every candidate row to its agent.
     */
    sellerListed: boolean("seller_listed").notNull().default(true),
    timesPurchased: integer("times_purchased").notNull().default(0),
    /**
     * BOUNTY only: agents send proposals and the poster picks one (domain/proposals/proposals.ts); such a
     * bounty is not claimed first come.
     */
    acceptsProposals: boolean("accepts_proposals").notNull().default(false),
    /** BOUNTY only: hours a claimant has to deliver, counted from the claim. */
    bountyDeliveryHours: integer("bounty_delivery_hours"),
    /** BOUNTY only: when an unclaimed (or re-opened) bounty is refunded to its poster and delisted. */
    bountyExpiresAt: timestamp("bounty_expires_at", { withTimezone: true }),
    /**
     * BOUNTY only: an external poster's reward is not in escrow yet. The listing is hidden until its
     * funding is seen (confirm, or the keeper finding the indexed escrow); its owner cannot list it.
     */
    awaitingFunding: boolean("awaiting_funding").notNull().default(false),
    /**
     * BOUNTY only: the price at which the agents it matches were told of it (`bounty.matching`,
     * domain/listings/bounty-matching.ts), set with their notifications; an open bounty whose price
     * differs (null: never told) is told by the keeper, so a crash before the telling loses nothing.
     */
    matchingPriceWei: numeric("matching_price_wei", { precision: 78, scale: 0 }),
    ratingSum: integer("rating_sum").notNull().default(0),
    ratingCount: integer("rating_count").notNull().default(0),
    /** Title and description as words, for `keyword` (GIN index: no scan). */
    search: tsvector("search")
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('simple', coalesce(title, '') || ' ' || coalesce(description, ''))`),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * The listing's part of its browse card, as JSON text left open (everything but its seller's
     * name and tier, which a page appends before the closing brace): kept by a trigger whenever a column it shows changes, so browsing reads it instead of
     * building it for every row of every page. Function and trigger: domain/reads/listing-cards.ts.
     */
    cardText: text("card_text"),
  },
  (t) => [
    // A keyword with a category and a type in one GIN scan (btree_gin): the matches of all three
    // are intersected in the index, not rechecked row by row. fastupdate off: no pending list that
    // makes the planner prefer a scan right after many inserts.
    index("listings_listed_search_idx")
      .using("gin", t.search, t.category, t.listingType)
      .with({ fastupdate: false })
      .where(sql`${t.isActive} AND ${t.sellerListed}`),
    // Browse's sorts, over the listings it can show: a page is the first rows of one of them,
    // within a category when one is asked for (half of all browsing); `expensive` reads the price
    // indexes backwards.
    index("listings_listed_created_idx").on(t.createdAt, t.id).where(sql`${t.isActive} AND ${t.sellerListed}`),
    index("listings_listed_price_idx").on(t.priceWei, t.id).where(sql`${t.isActive} AND ${t.sellerListed}`),
    index("listings_listed_popular_idx").on(t.timesPurchased, t.id).where(sql`${t.isActive} AND ${t.sellerListed}`),
    index("listings_listed_category_created_idx")
      .on(t.category, t.createdAt, t.id)
      .where(sql`${t.isActive} AND ${t.sellerListed}`),
    index("listings_listed_category_price_idx")
      .on(t.category, t.priceWei, t.id)
      .where(sql`${t.isActive} AND ${t.sellerListed}`),
    index("listings_listed_category_popular_idx")
      .on(t.category, t.timesPurchased, t.id)
      .where(sql`${t.isActive} AND ${t.sellerListed}`),
    index("listings_agent_id_idx").on(t.agentId),
    // A profile's newest active listings: their ids in order from the index alone, where the index on
    // agent_id made Postgres fetch every listing of the agent and sort them (domain/agents/agent-profile.ts).
    index("listings_agent_active_created_idx").on(t.agentId, t.createdAt, t.id).where(sql`${t.isActive}`),
    // /api/stats and /api/info count the active listings of each type from this index alone.
    index("listings_active_type_idx").on(t.listingType).where(sql`${t.isActive}`),
    // The keeper looks for funded bounties still hidden: few rows, looked up every run.
    index("listings_awaiting_funding_idx").on(t.id).where(sql`${t.awaitingFunding}`),
    // Open bounties whose matching agents were not told yet: none but in the moment after a post.
    index("listings_matching_due_idx")
      .on(t.id)
      .where(
        sql`${t.listingType} = 'BOUNTY' AND ${t.isActive} AND NOT ${t.awaitingFunding} AND ${t.matchingPriceWei} IS DISTINCT FROM ${t.priceWei}`,
      ),
  ],
);

/**
 * Each word of each listing browse can show (is_active and seller_listed), with the listing's
 * filters and sort keys: a keyword's page reads the first rows of its word in the sort's order,
 * where the GIN index of listings.search finds every match and sorts them all. Kept by a trigger
 * on app.listings (migration 0021), in the same transaction as the listing.
 */
export const listingWords = app.table(
  "listing_words",
  {
    word: byteText("word").notNull(),
    listingId: uuid("listing_id").notNull(),
    agentId: uuid("agent_id").notNull(),
    category: text("category").notNull(),
    listingType: text("listing_type").notNull(),
    priceWei: wei("price_wei").notNull(),
    timesPurchased: integer("times_purchased").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    // One per sort, with the filters' columns after the sort key: a scan filters rows in the index
    // without visiting the table (drizzle has no INCLUDE).
    index("listing_words_created_idx").on(
      t.word,
      t.createdAt,
      t.listingId,
      t.category,
      t.listingType,
      t.priceWei,
      t.agentId,
    ),
    index("listing_words_price_idx").on(t.word, t.priceWei, t.listingId, t.category, t.listingType, t.agentId),
    index("listing_words_popular_idx").on(
      t.word,
      t.timesPurchased,
      t.listingId,
      t.category,
      t.listingType,
      t.priceWei,
      t.agentId,
    ),
    index("listing_words_listing_idx").on(t.listingId),
  ],
);

/**
 * What changed that a browse page shows, in the order the changes were committed: each API process
 * keeps the listings browse can show in memory (domain/reads/listing-index.ts) and, before answering a
 * page, reads the newest version here and catches up on the listings and sellers changed since.
 * Written by deferred triggers on app.listings and app.agents (migration 0026) under one advisory
 * lock taken just before commit, so a version is never seen before a smaller one. The newest
 * changes are kept (pruned by the API); a process further behind loads everything again.
 */
export const browseChanges = app.table("browse_changes", {
  version: bigint("version", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  /** A listing inserted, updated in something browse shows, or deleted. */
  listingId: uuid("listing_id"),
  /** A seller renamed, or its kept tier changed (its cards name both). */
  agentId: uuid("agent_id"),
});

/**
 * Which agents' profiles changed, in commit order (as app.browse_changes, and under the same lock):
 * a kept profile (app.profile_docs) holds while no change of its agent is newer than the one it was
 * built after. Written by deferred triggers (migration 0027) on what a profile shows of the app's
 * tables: the agent, its listings, its transactions and their disputes, and the names of the agents
 * it traded with. The newest changes are kept (pruned by the API, as browse_changes).
 */
export const profileChanges = app.table(
  "profile_changes",
  {
    version: bigint("version", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    agentId: uuid("agent_id").notNull(),
  },
  (t) => [index("profile_changes_agent_version_idx").on(t.agentId, t.version)],
);

/**
 * Each agent's public profile (GET /api/agents/{id}) as the JSON it answers, and the fields its own
 * profile (GET /api/agents/me) adds, kept from one read to the next (domain/reads/kept-profiles.ts). They
 * are served while they are current: no app.profile_changes row of the agent after `built_version`,
 * the agent's chain.account_stats `last_event` (its newest escrow event) still `last_event`, and
 * the same escrow contract. Otherwise they are built again.
 */
export const profileDocs = app.table("profile_docs", {
  agentId: uuid("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
  body: text("body").notNull(),
  /** The own profile's fields after the public ones, as a JSON object's text. */
  ownFields: text("own_fields").notNull(),
  /** The newest app.profile_changes version the body's snapshot saw. */
  builtVersion: bigint("built_version", { mode: "number" }).notNull(),
  /**
   * The agent's account_stats.last_event its record was counted as of (app.agent_records); null
   * without a row there.
   */
  lastEvent: text("last_event"),
  /** The escrow contract the body's transactions name (a new local chain has another). */
  escrowContract: text("escrow_contract").notNull(),
});

/**
 * Each agent's track record, kept (domain/agents/agent-records.ts): the figures of the escrows that are
 * its transactions' escrows under the rule of domain/transactions/escrow-match.ts, in the role it held in the
 * transaction, never any other escrow naming its wallet (anyone may fund one). The columns are
 * chain.account_stats' figures, counted over those escrows only. Recomputed (never incremented) by
 * one statement for some agents or for all.
 */
export const agentRecords = app.table("agent_records", {
  agentId: uuid("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
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
  /** Released without ever being disputed: the successes of the reputation rule (shared/reputation.ts). */
  releasedUndisputedAsBuyer: integer("released_undisputed_as_buyer").notNull().default(0),
  releasedUndisputedAsSeller: integer("released_undisputed_as_seller").notNull().default(0),
  /** In dispute now (not yet ruled, released or refunded): rated deals that count against the rate. */
  inDisputeAsBuyer: integer("in_dispute_as_buyer").notNull().default(0),
  inDisputeAsSeller: integer("in_dispute_as_seller").notNull().default(0),
  /** The seller side (payout + fee) of its escrows released or ruled, as buyer. */
  volumeAsBuyer: wei("volume_as_buyer").notNull(),
  volumeAsSeller: wei("volume_as_seller").notNull(),
  /** What it received as seller (after fees). */
  earned: wei("earned").notNull(),
  /** Returned to it as buyer by refunds and rulings. */
  refundedToBuyer: wei("refunded_to_buyer").notNull(),
  /** Still held in escrow for it as buyer. */
  lockedAsBuyer: wei("locked_as_buyer").notNull(),
  /**
   * The wallet's chain.account_stats.last_event the record was counted as of (null without a row
   * there): a reader of one agent's record counts it again when the wallet's last event moved.
   */
  lastEvent: text("last_event"),
});

/**
 * Each transaction's escrow while it matches every term (domain/transactions/escrow-match.ts), kept with what
 * the records and the marketplace's figures count of it (domain/agents/agent-records.ts): the escrows
 * that are some transaction's, found once instead of at every read. No row while the transaction
 * has no matching escrow (a foreign one is nobody's).
 */
export const transactionEscrows = app.table(
  "transaction_escrows",
  {
    transactionId: uuid("transaction_id")
      .primaryKey()
      .references(() => transactions.id, { onDelete: "cascade" }),
    buyerAgentId: uuid("buyer_agent_id").notNull(),
    /** The transaction's seller agent while the escrow names its wallet as seller; else null. */
    sellerAgentId: uuid("seller_agent_id"),
    status: text("status").notNull(),
    amount: wei("amount").notNull(),
    disputed: boolean("disputed").notNull(),
    sellerPayout: wei("seller_payout").notNull(),
    buyerPayout: wei("buyer_payout").notNull(),
    feePaid: wei("fee_paid").notNull(),
    /** Unix seconds of the block that funded, and that settled it (null while open). */
    fundedAt: wei("funded_at").notNull(),
    settledAt: wei("settled_at"),
  },
  (t) => [
    index("transaction_escrows_buyer_idx").on(t.buyerAgentId),
    index("transaction_escrows_seller_idx").on(t.sellerAgentId),
    // The daily figures and a period's leaderboard read a range of days.
    index("transaction_escrows_funded_at_idx").on(t.fundedAt),
    index("transaction_escrows_settled_at_idx").on(t.settledAt),
  ],
);

/**
 * The marketplace's own totals of one chain (GET /api/stats), over app.transaction_escrows: how
 * many there are and the seller side of those released or ruled. Moved by the exact change of each
 * refresh of those rows, in its statement; set by a full refresh.
 */
export const platformTotals = app.table("platform_totals", {
  chainId: integer("chain_id").primaryKey(),
  /** Transactions whose escrow was funded on chain with every term (app.transaction_escrows' rows). */
  transactions: integer("transactions").notNull(),
  /** The seller side (payout + fee) of those released or ruled. */
  settledVolume: wei("settled_volume").notNull(),
});

/**
 * A trade between two agents. Its id is the escrow's funding reference (escrowRef(id)); the escrow on
 * chain is escrowIdOf(buyer's wallet, ref). Its state is derived from that escrow when every term matches
 * (domain/transactions/escrow-match.ts), never stored.
 */
export const transactions = app.table(
  "transactions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    listingId: uuid("listing_id").references(() => listings.id),
    buyerAgentId: uuid("buyer_agent_id")
      .notNull()
      .references(() => agents.id),
    /** Null while a bounty is unclaimed. */
    sellerAgentId: uuid("seller_agent_id").references(() => agents.id),
    amountWei: wei("amount_wei").notNull(),
    currency: text("currency").notNull().default("USDC"),
    description: text("description").notNull().default(""),
    deadline: timestamp("deadline", { withTimezone: true }).notNull(),
    disputeWindowSeconds: integer("dispute_window_seconds").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * The escrow's funding reference when it is not escrowRef(id): an x402 payment's nonce
     * (domain/x402). The escrow is then escrowIdOf(buyer's wallet, escrow_ref), and the id is the
     * uuid derived from that escrow id (uuidOfEscrowId), which the indexer gives the escrow too.
     */
    escrowRef: text("escrow_ref"),
  },
  (t) => [
    index("transactions_buyer_idx").on(t.buyerAgentId, t.createdAt),
    index("transactions_seller_idx").on(t.sellerAgentId, t.createdAt),
    index("transactions_created_idx").on(t.createdAt, t.id),
  ],
);

/**
 * An x402 payment settled into an escrow (domain/x402): its transaction (whose id is derived from the
 * payer and the nonce, so one authorization is one transaction), the signer and the nonce, and the
 * relayer's settlement. `front_run`: the authorization had been used at the token by someone else
 * before the settlement (it was public then), so nobody was given a receipt token for it.
 */
export const x402Payments = app.table("x402_payments", {
  transactionId: uuid("transaction_id")
    .primaryKey()
    .references(() => transactions.id),
  /** Checksummed. */
  payer: text("payer").notNull(),
  /** The authorization's nonce, 0x and 64 lowercase hex: the escrow's ref. */
  nonce: text("nonce").notNull(),
  listingId: uuid("listing_id")
    .notNull()
    .references(() => listings.id),
  /**
   * What the payer signed, as fundWithTransfer takes it (amounts as decimal strings): a request
   * presenting this nonce again must present exactly this.
   */
  authorization: jsonb("authorization").$type<StoredTransferAuthorization>().notNull(),
  /** The relayer's fundWithTransfer (its outbox row has the same hash). */
  settlementTxHash: text("settlement_tx_hash").notNull(),
  frontRun: boolean("front_run").notNull().default(false),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Receipt tokens (`rcpt_…`): what the keyless buyer of an x402 payment acts with, on that payment's
 * transaction only (auth/receipt-tokens.ts). Only their SHA-256 is kept.
 */
export const receiptTokens = app.table(
  "receipt_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    transactionId: uuid("transaction_id")
      .notNull()
      .references(() => transactions.id),
    tokenHash: text("token_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("receipt_tokens_token_hash_key").on(t.tokenHash),
    index("receipt_tokens_transaction_idx").on(t.transactionId),
  ],
);

/**
 * An offer of another price on a negotiable FIXED listing (domain/offers/offers.ts, the rules in
 * domain/offers/offer-state.ts): its current price and status, whose turn follows from the status. A buyer
 * has at most one live offer per listing.
 */
export const offers = app.table(
  "offers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    listingId: uuid("listing_id")
      .notNull()
      .references(() => listings.id),
    buyerAgentId: uuid("buyer_agent_id")
      .notNull()
      .references(() => agents.id),
    sellerAgentId: uuid("seller_agent_id")
      .notNull()
      .references(() => agents.id),
    /** The price last proposed (the agreed one once ACCEPTED). */
    priceWei: wei("price_wei").notNull(),
    /** The delivery deadline of the purchase, in hours from funding. */
    deadlineHours: integer("deadline_hours").notNull(),
    status: text("status").$type<OfferStatus>().notNull(),
    /** When a live offer expires (72 h after its last price, 24 h after acceptance); null once closed. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** The purchase of a PURCHASED offer. */
    transactionId: uuid("transaction_id").references(() => transactions.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("offers_listing_idx").on(t.listingId, t.createdAt, t.id),
    index("offers_buyer_idx").on(t.buyerAgentId, t.createdAt, t.id),
    index("offers_seller_idx").on(t.sellerAgentId, t.createdAt, t.id),
    uniqueIndex("offers_live_per_buyer_key")
      .on(t.listingId, t.buyerAgentId)
      .where(sql`${t.status} IN ('OPEN', 'COUNTERED', 'ACCEPTED')`),
    index("offers_live_expiry_idx").on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`),
  ],
);

/** Each move of an offer, in order: who made it, what, at which price and with which message. */
export const offerMoves = app.table(
  "offer_moves",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    offerId: uuid("offer_id")
      .notNull()
      .references(() => offers.id),
    /** Null for the service's own move (an expiry). */
    agentId: uuid("agent_id").references(() => agents.id),
    action: text("action").$type<OfferAction>().notNull(),
    priceWei: wei("price_wei").notNull(),
    message: text("message"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("offer_moves_offer_idx").on(t.offerId, t.createdAt)],
);

/**
 * A proposal to do a bounty that takes proposals (domain/proposals/proposals.ts): the agent's pitch and the
 * hours it says it needs; the poster accepts one, the others are declined. An agent has at most one
 * PENDING proposal per bounty.
 */
export const proposals = app.table(
  "proposals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    listingId: uuid("listing_id")
      .notNull()
      .references(() => listings.id),
    /** The agent that would do the work. */
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    /** The bounty's poster, who accepts one proposal. */
    posterAgentId: uuid("poster_agent_id")
      .notNull()
      .references(() => agents.id),
    pitch: text("pitch").notNull(),
    /** The hours the agent says it needs; the delivery deadline stays the bounty's own. */
    etaHours: integer("eta_hours"),
    /**
     * The price the agent asks, in USDC wei, as clients of the live service send it. A bounty is
     * funded beforehand: a proposal asking another price than the reward cannot be accepted.
     */
    proposedPriceWei: wei("proposed_price_wei"),
    status: text("status").$type<ProposalStatus>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("proposals_listing_idx").on(t.listingId, t.createdAt, t.id),
    index("proposals_agent_idx").on(t.agentId, t.createdAt, t.id),
    index("proposals_poster_idx").on(t.posterAgentId, t.createdAt, t.id),
    uniqueIndex("proposals_pending_per_agent_key").on(t.listingId, t.agentId).where(sql`${t.status} = 'PENDING'`),
  ],
);

/**
 * The shared rate-limit windows (rate-limit/store.ts): one row per key and its current window.
 * `hits` are the requests granted to the API instances in the window, never above `hit_limit`;
 * `granted` is what the last lease got. Rows of ended windows are pruned.
 */
export const rateLimitWindows = app.table("rate_limit_windows", {
  key: text("key").primaryKey(),
  windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  hits: integer("hits").notNull(),
  hitLimit: integer("hit_limit").notNull(),
  granted: integer("granted").notNull(),
});

/**
 * The notification streams open now (GET /api/notifications/stream), in every API process: an
 * agent may hold a few at once. A stream says it is alive at each of its reads; one not heard of
 * for long (its process gone) no longer counts.
 */
export const notificationStreams = app.table(
  "notification_streams",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id").notNull(),
    openedAt: timestamp("opened_at", { withTimezone: true }).notNull().defaultNow(),
    seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("notification_streams_agent_idx").on(t.agentId)],
);

/**
 * The MCP sessions of /mcp (Streamable HTTP), in every API process: the session id (hashed) a
 * client got at `initialize` and echoes as `Mcp-Session-Id`, and the agent key the session acts
 * with (sealed: the key `register` answered, or the one the client sent), so a session keeps
 * working after `register` without the client adding a header. Idle ones end.
 */
export const mcpSessions = app.table("mcp_sessions", {
  idHash: text("id_hash").primaryKey(),
  sealedKey: text("sealed_key"),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});

/**
 * The API instances sharing the rate-limit counts, each as last heard from: an instance that hears
 * of no other counts on its own, without asking the database before it answers (rate-limit/store.ts).
 */
export const rateLimitInstances = app.table("rate_limit_instances", {
  id: text("id").primaryKey(),
  seenAt: timestamp("seen_at", { withTimezone: true }).notNull(),
});

/**
 * The relayer's outbox: every transaction the service sends on-chain, signed and recorded here
 * before it is broadcast. A crash after the broadcast and before the answer leaves a `signed` row
 * whose hash the relayer looks up (and re-broadcasts if unknown) when it resumes, so nothing is
 * sent twice and nothing is forgotten. Nonces come from this table, under an advisory lock.
 */
export const relayedTransactions = app.table(
  "relayed_transactions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    chainId: integer("chain_id").notNull(),
    /**
     * Which instance of the chain: the hash of the escrow's deployment block. A restarted local
     * node has the same chain id but none of the old transactions; its rows are never re-sent.
     */
    chainInstance: text("chain_instance").notNull(),
    /** The relayer's address (checksummed). */
    fromAddress: text("from_address").notNull(),
    nonce: integer("nonce").notNull(),
    toAddress: text("to_address").notNull(),
    data: text("data").notNull(),
    /** What it does, e.g. "fund", "deliver", "release"; for logs and the keeper. */
    purpose: text("purpose").notNull(),
    /** The marketplace transaction it acts on, if any. */
    transactionId: uuid("transaction_id"),
    rawTransaction: text("raw_transaction").notNull(),
    txHash: text("tx_hash").notNull(),
    /** signed (maybe broadcast, no receipt yet), mined, reverted, or dropped (its nonce went to another transaction). */
    status: text("status", { enum: ["signed", "mined", "reverted", "dropped"] })
      .notNull()
      .default("signed"),
    blockNumber: numeric("block_number", { precision: 20, scale: 0 }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("relayed_transactions_nonce_key").on(t.chainInstance, t.fromAddress, t.nonce),
    uniqueIndex("relayed_transactions_tx_hash_key").on(t.txHash),
    index("relayed_transactions_pending_idx").on(t.chainInstance, t.fromAddress).where(sql`status = 'signed'`),
    index("relayed_transactions_transaction_idx").on(t.transactionId),
  ],
);

/**
 * USDC a wallet's sends in flight will spend (domain/wallet/balance-reservations.ts): taken under a lock
 * per wallet before anything is signed, so concurrent sends that do not fit the balance are refused
 * instead of mined and reverted. One lives until its send is mined (the balance shows it then),
 * refused or dropped; one never signed lapses at `expires_at`.
 */
export const balanceReservations = app.table(
  "balance_reservations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    chainId: integer("chain_id").notNull(),
    /** The spending wallet (checksummed). */
    walletAddress: text("wallet_address").notNull(),
    amountWei: wei("amount_wei").notNull(),
    /** What it pays for: "fund", "withdraw". */
    purpose: text("purpose").notNull(),
    /** The send that spends it, set in the outbox's database transaction; null until signed. */
    txHash: text("tx_hash"),
    /** When a reservation whose send was never signed stops counting (its process died). */
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("balance_reservations_wallet_idx").on(t.chainId, t.walletAddress)],
);

/**
 * Every tx_hash an external agent handed in and the API accepted, with what it proved. A hash is
 * accepted once, ever: a replay answers 409, whatever it is replayed for.
 */
export const acceptedTxHashes = app.table("accepted_tx_hashes", {
  txHash: text("tx_hash").primaryKey(),
  chainId: integer("chain_id").notNull(),
  /** What it proved: "fund", "deliver", "release", ... */
  purpose: text("purpose").notNull(),
  transactionId: uuid("transaction_id").notNull(),
  agentId: uuid("agent_id").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * What sellers delivered: the content stays off-chain, its keccak256 is committed on chain by
 * `deliver`. A seller may submit more than one version before delivering on chain; the parties
 * read the one whose hash the chain holds.
 */
export const deliverables = app.table(
  "deliverables",
  {
    transactionId: uuid("transaction_id")
      .notNull()
      .references(() => transactions.id),
    hash: text("hash").notNull(),
    content: text("content").notNull(),
    /** A link the seller gave with the content (`deliverable_url`); the hash covers it too. */
    url: text("url"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("deliverables_transaction_hash_key").on(t.transactionId, t.hash)],
);

/** USDC sent out of hosted agents' wallets; the state comes from the relayer's outbox row. */
export const withdrawals = app.table(
  "withdrawals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    destinationAddress: text("destination_address").notNull(),
    amountWei: wei("amount_wei").notNull(),
    txHash: text("tx_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("withdrawals_agent_idx").on(t.agentId, t.createdAt)],
);

/**
 * Idempotency-Key records: the first request with a key runs, a retry with the same key and body
 * gets the stored answer, and nothing is created twice. A key whose request never finished (the
 * process died) is not run again: its retry answers 409, since money may have moved.
 */
export const idempotencyKeys = app.table(
  "idempotency_keys",
  {
    /**
     * Whose key it is (http/idempotency.ts): the acting agent's id, `owner:<address>` for an owner's
     * session, `arbiter` for the arbiter.
     */
    subject: text("subject").notNull(),
    key: text("key").notNull(),
    /** sha256 of method, path and body: the same key with another request is refused. */
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status"),
    /** The 2xx answer, sealed under the master key (crypto/secret-box.ts): some hold a key shown once. */
    responseBody: text("response_body"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("idempotency_keys_subject_key").on(t.subject, t.key)],
);

/** What the parties submit while a transaction is disputed, for the arbiter. */
export const evidence = app.table(
  "evidence",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    transactionId: uuid("transaction_id")
      .notNull()
      .references(() => transactions.id),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    content: text("content").notNull(),
    url: text("url"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("evidence_transaction_idx").on(t.transactionId, t.createdAt)],
);

/**
 * A dispute's words, which the chain holds only as hashes: the reason of the party who opened it
 * (its keccak256 is the on-chain reasonHash) and the arbiter's note with the ruling.
 */
export const disputes = app.table(
  "disputes",
  {
    transactionId: uuid("transaction_id")
      .primaryKey()
      .references(() => transactions.id),
    raisedByAgentId: uuid("raised_by_agent_id")
      .notNull()
      .references(() => agents.id),
    reason: text("reason").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The arbiter's note, kept when the ruling is sent. */
    rulingNote: text("ruling_note"),
    ruledAt: timestamp("ruled_at", { withTimezone: true }),
  },
  (t) => [index("disputes_created_idx").on(t.createdAt)],
);

/**
 * What agents write to each other: a direct message names its recipient; a public feed post has
 * none. A conversation is the messages between two agents, either way.
 */
export const messages = app.table(
  "messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    senderAgentId: uuid("sender_agent_id")
      .notNull()
      .references(() => agents.id),
    /** Null for a public feed post. */
    recipientAgentId: uuid("recipient_agent_id").references(() => agents.id),
    content: text("content").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("messages_sender_recipient_idx").on(t.senderAgentId, t.recipientAgentId, t.createdAt, t.id),
    index("messages_recipient_sender_idx").on(t.recipientAgentId, t.senderAgentId, t.createdAt, t.id),
    index("messages_feed_idx").on(t.createdAt, t.id).where(sql`${t.recipientAgentId} IS NULL`),
  ],
);

/**
 * What one party of a RELEASED transaction says of the other: one review per party and
 * transaction. A buyer's review of the seller also counts in the listing's rating.
 */
export const reviews = app.table(
  "reviews",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    transactionId: uuid("transaction_id")
      .notNull()
      .references(() => transactions.id),
    listingId: uuid("listing_id").references(() => listings.id),
    reviewerAgentId: uuid("reviewer_agent_id")
      .notNull()
      .references(() => agents.id),
    revieweeAgentId: uuid("reviewee_agent_id")
      .notNull()
      .references(() => agents.id),
    rating: integer("rating").notNull(),
    comment: text("comment"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    // ERC-8004 feedback (migration "erc8004"): a hosted reviewer's review, given on chain.
    /** The feedback file exactly as its keccak256 went on chain (served as feedback.json). */
    erc8004FeedbackFile: text("erc8004_feedback_file"),
    /** The `giveFeedback` transaction, recorded when signed: a review is given on chain once. */
    erc8004FeedbackTxHash: text("erc8004_feedback_tx_hash"),
    /** The feedback's index (per agent and client, from 1), once mined. */
    erc8004FeedbackIndex: bigint("erc8004_feedback_index", { mode: "number" }),
  },
  (t) => [
    uniqueIndex("reviews_transaction_reviewer_key").on(t.transactionId, t.reviewerAgentId),
    index("reviews_reviewee_idx").on(t.revieweeAgentId, t.createdAt, t.id),
    check("reviews_rating_range", sql`${t.rating} BETWEEN 1 AND 5`),
  ],
);

/** Sign-In with Ethereum nonces: handed out once, spent by the login that carries them. */
export const siweNonces = app.table("siwe_nonces", {
  nonce: text("nonce").primaryKey(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
});

/** Owners' sessions (Sign-In with Ethereum): the token's SHA-256 and the signer's address. */
export const userSessions = app.table(
  "user_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tokenHash: text("token_hash").notNull(),
    /** Lowercase. */
    address: text("address").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("user_sessions_token_hash_key").on(t.tokenHash)],
);

/**
 * What happened that concerns an agent (a payment, a delivery, a message, a review...), one row
 * per agent and event: `dedupe_key` names the event, so producing it twice stores it once.
 */
export const notifications = app.table(
  "notifications",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    kind: text("kind").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    dedupeKey: text("dedupe_key").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp("read_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("notifications_agent_dedupe_key").on(t.agentId, t.dedupeKey),
    index("notifications_agent_created_idx").on(t.agentId, t.createdAt, t.id),
    index("notifications_unread_idx").on(t.agentId).where(sql`${t.readAt} IS NULL`),
  ],
);

/**
 * One webhook delivery per notification of an agent that has a webhook URL: the URL at the time,
 * the attempts so far and the last answer. The agent reads them as its delivery log.
 */
export const webhookDeliveries = app.table(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    notificationId: uuid("notification_id")
      .notNull()
      .references(() => notifications.id),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    url: text("url").notNull(),
    /** pending (waiting for its next attempt), delivered (a 2xx answer), failed (attempts exhausted). */
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_notification_key").on(t.notificationId),
    index("webhook_deliveries_agent_created_idx").on(t.agentId, t.createdAt, t.id),
    // An endpoint's next delivery: its oldest due pending one.
    index("webhook_deliveries_agent_due_idx").on(t.agentId, t.nextAttemptAt, t.id).where(sql`status = 'pending'`),
    // The failed ones, counted at every scrape of /metrics (few, where the table holds every delivery).
    index("webhook_deliveries_failed_idx").on(t.createdAt).where(sql`status = 'failed'`),
  ],
);

/**
 * Each agent's webhook endpoint as the sender sees it (notifications/webhook-sender.ts): one
 * delivery in flight at a time, a wait after each failure in a row, and a circuit that pauses it
 * after too many. A row exists for every agent that has had a webhook URL or a pending delivery.
 */
export const webhookEndpoints = app.table(
  "webhook_endpoints",
  {
    agentId: uuid("agent_id")
      .primaryKey()
      .references(() => agents.id, { onDelete: "cascade" }),
    /** Failed attempts in a row since the last 2xx (or since the webhook was set). */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** Nothing is sent to it before (its backoff after a failure). */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * A sender holds it until then while a delivery is in flight; once the delivery is recorded,
     * the time it was freed, so the endpoint served longest ago goes first.
     */
    leasedUntil: timestamp("leased_until", { withTimezone: true }).notNull().defaultNow(),
    /**
     * When the circuit opened: nothing is sent (deliveries wait) until the webhook is set again or
     * a test delivery succeeds.
     */
    pausedAt: timestamp("paused_at", { withTimezone: true }),
  },
  (t) => [
    index("webhook_endpoints_ready_idx").on(t.leasedUntil).where(sql`paused_at IS NULL`),
    // The paused ones, counted at every scrape of /metrics.
    index("webhook_endpoints_paused_idx").on(t.pausedAt).where(sql`paused_at IS NOT NULL`),
  ],
);

/** How far a background reader has read an ordered source (e.g. the indexed escrow events). */
export const readCursors = app.table("read_cursors", {
  name: text("name").primaryKey(),
  position: text("position").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Public events of the marketplace shown in the feed next to posts (a purchase, a claim, a payment). */
export const feedEvents = app.table(
  "feed_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    kind: text("kind").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** Names the event: produced twice, stored once. */
    dedupeKey: text("dedupe_key").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("feed_events_dedupe_key").on(t.dedupeKey),
    index("feed_events_created_idx").on(t.createdAt, t.id),
  ],
);

/**
 * An owner's spending caps on one hosted agent (domain/wallet/spending-caps.ts): every money move
 * the service signs for the agent is checked against them under its wallet's lock. Null: no cap.
 */
export const spendingLimits = app.table(
  "spending_limits",
  {
    agentId: uuid("agent_id")
      .primaryKey()
      .references(() => agents.id),
    /** The most one move may spend. */
    perPurchaseWei: wei("per_purchase_wei"),
    /** The most the moves of any 24 hours may spend together. */
    perDayWei: wei("per_day_wei"),
    /** A move the agent asks for above this waits for its owner's approval. */
    approvalAboveWei: wei("approval_above_wei"),
    /** The owner's address (lowercase) that set them last. */
    updatedBy: text("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check(
      "spending_limits_non_negative",
      sql`${t.perPurchaseWei} >= 0 AND ${t.perDayWei} >= 0 AND ${t.approvalAboveWei} >= 0`,
    ),
  ],
);

/**
 * What the service signed (or is signing) for a hosted agent: one row per capped move, written
 * with its balance reservation, tied to its send (`tx_hash`) in the outbox's database transaction.
 * A day's spending is the sum of the last 24 hours' rows whose send was not reverted or dropped,
 * and of those not yet signed for at most 5 minutes (a move that fails before it is signed
 * deletes its row).
 */
export const agentSpends = app.table(
  "agent_spends",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    action: text("action").$type<SpendAction>().notNull(),
    amountWei: wei("amount_wei").notNull(),
    /** The send that spends it; null until signed. */
    txHash: text("tx_hash"),
    /** The owner's approval this move carries out, if it waited for one. */
    approvalId: uuid("approval_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("agent_spends_agent_created_idx").on(t.agentId, t.createdAt),
    index("agent_spends_approval_idx").on(t.approvalId).where(sql`approval_id IS NOT NULL`),
  ],
);

/**
 * A move a hosted agent asked for above its owner's approval threshold (domain/owners/
 * spending-approvals.ts): the request as validated, carried out once if its owner approves it.
 */
export const spendingApprovals = app.table(
  "spending_approvals",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    /** The agent's owner when it was asked (lowercase). */
    ownerAddress: text("owner_address"),
    action: text("action").$type<SpendAction>().notNull(),
    /** The request to carry out, as the route validated it (domain/wallet/spending-caps.ts). */
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    /** What the move is, in words (the listing's title, the destination…). */
    summary: text("summary").notNull(),
    amountWei: wei("amount_wei").notNull(),
    /** pending until decided; a pending one past `expires_at` reads as expired. */
    state: text("state").$type<ApprovalState>().notNull().default("pending"),
    /** What the approved move did: its transaction or withdrawal, and tx_hash. */
    result: jsonb("result").$type<Record<string, unknown>>(),
    /** Why the approved move was not carried out: the refusal's code and words. */
    failure: jsonb("failure").$type<Record<string, unknown>>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    index("spending_approvals_agent_created_idx").on(t.agentId, t.createdAt, t.id),
    index("spending_approvals_pending_idx").on(t.agentId).where(sql`state = 'pending'`),
  ],
);
