import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import { chainAccountStats } from "../../db/chain-views.ts";
import { compiled } from "../../db/compiled-statement.ts";
import { agentRecords, agents, listings, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { refreshAgentRecords } from "../agents/agent-records.ts";
import { listingBrowse } from "../reads/listing-browse.ts";
import { recordIsCurrent, recordOf, recordOn, walletStatsOn } from "../reads/track-record.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { badRequest, ConflictError, conflict, forbidden, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import {
  DEFAULT_DELIVERY_HOURS,
  type ListingCategory,
  type ListingState,
  type ListingType,
  listingStateOf,
  storedCategory,
  storedListingType,
} from "../shared/listing-terms.ts";
import { formatUsdc } from "../shared/money.ts";
import { successFigures } from "../shared/reputation.ts";
import { type EscrowFunding, escrowFunding } from "../transactions/escrow-funding.ts";
import { type AwaitingApproval, awaitingApproval } from "../wallet/approval-requests.ts";
import type { SpendOrigin } from "../wallet/spending-caps.ts";
import { networkOf, X402_VERSION } from "../x402/payment-requirements.ts";
import { bountyMatching } from "./bounty-matching.ts";

/*
 * Listings: the browse query, a listing's details, and an agent's own listings created (a BOUNTY
 * with the escrow of its reward), updated and deactivated. Every write forgets the cached browse
 * answers (`readCache`), so this instance reads its own writes at once.
 */

type Agent = typeof agents.$inferSelect;

/** A BOUNTY's default hours open (its hours to deliver after the claim: DEFAULT_DELIVERY_HOURS). */
const DEFAULT_BOUNTY_EXPIRY_HOURS = 720;
const _INT32_MAX = 2_147_483_647;

/** A new listing, as the API names its fields (validated by the route). */
/** A listing as GET /api/listings/{id} answers it: the stored card and the seller's figures. */
export interface ListingView {
  id: string;
  title: string;
  description: string;
  category: ListingCategory;
  listing_type: ListingType;
  price_wei: string;
  price_usdc: string;
  currency: "USDC";
  is_active: boolean;
  /** Where it stands for its seller: active, paused, awaiting_funding or closed. */
  state: ListingState;
  is_negotiable: boolean;
  accepts_proposals: boolean;
  times_purchased: number;
  avg_rating: string;
  created_at: string;
  rating_count: number;
  delivery_hours: number;
  agents: { id: string; name: string; wallet_address: string; transaction_count: number };
  seller_reputation: {
    completed: number;
    refunded: number;
    disputed: number;
    /** Integer percent, rounded down; 0 with rated_deals 0 (no rate yet). */
    success_rate: number;
    rated_deals: number;
  };
  /**
   * A FIXED listing bought over x402 by any stock x402 client (GET or POST the endpoint: a 402 with
   * the payment requirements, then the payment); null for a BOUNTY.
   */
  x402: {
    endpoint: string;
    methods: string[];
    x402_version: number;
    scheme: string;
    /** CAIP-2: eip155:<chain id>. */
    network: string;
    /** USDC. */
    asset: string;
    /** The escrow contract. */
    pay_to: string;
  } | null;
}

export interface CreateListingInput {
  title: string;
  description: string;
  price_wei: string;
  category: ListingCategory;
  listing_type: ListingType;
  price_usdc?: string;
  is_negotiable: boolean;
  /** BOUNTY only: proposals instead of the first claim. */
  accepts_proposals?: boolean;
  /** BOUNTY only. */
  deadline_hours?: number;
  /** BOUNTY only. */
  expires_in_hours?: number;
}

/** The changes to an own listing; absent fields stay as they are. */
export interface UpdateListingInput {
  price_wei?: string;
  price_usdc?: string;
  is_active?: boolean;
  is_negotiable?: boolean;
  title?: string;
  description?: string;
  category?: ListingCategory;
}

/** One of an agent's own listings, as its seller manages it (GET /api/agents/me/listings). */
export type OwnListingView = Pick<
  ListingView,
  | "id"
  | "title"
  | "description"
  | "category"
  | "listing_type"
  | "price_wei"
  | "price_usdc"
  | "currency"
  | "is_active"
  | "state"
  | "is_negotiable"
  | "accepts_proposals"
  | "times_purchased"
  | "created_at"
> & { updated_at: string };

export interface OwnListingsInput {
  limit: number;
  cursor?: string;
}

/** A BOUNTY's escrow as its creation leaves it: funded now (hosted poster) or awaiting the poster's funding. */
export type BountyFundingView =
  | { transaction_id: string; state: "FUNDED"; tx_hash: string }
  | { transaction_id: string; state: "PENDING"; instructions: ReturnType<EscrowFunding["instructions"]> };

export type CreatedListingView = ListingView & { funding?: BountyFundingView };

/** 400 unless `priceUsdc` (when given) is `priceWei` in USDC with two decimals. */
function checkPriceUsdc(priceUsdc: string | undefined, priceWei: string) {
  if (priceUsdc === undefined) return;
  const expected = formatUsdc(priceWei);
  if (priceUsdc !== expected) {
    throw badRequest(`price_usdc ${priceUsdc} does not match price_wei ${priceWei} (${expected} USDC)`, {
      expected_price_usdc: expected,
    });
  }
}

export function listingUseCases(
  deps: Pick<
    Deps,
    | "db"
    | "genericPlansDb"
    | "config"
    | "chain"
    | "escrow"
    | "relayer"
    | "indexed"
    | "readCache"
    | "listingIndex"
    | "logger"
  >,
  paths: ApiPaths,
) {
  const { db, chain } = deps;
  const funding = escrowFunding(deps, paths);
  const matching = bountyMatching(deps, paths);
  /** Forgets the cached browse answers after a write that may change one. */
  const browseChanged = () => deps.readCache?.invalidate();

  /**
   * Any listing, active or not, with its seller and the seller's track record, as the JSON text
   * GET /api/listings/{id} sends: the stored card (listingCardSql) closed with the rest, so the
   * listing's own fields are not decoded and written again. 404 when unknown.
   */
  async function detailsJson(id: string): Promise<string> {
    let [row] = await listingById.execute({ id });
    if (!row) throw notFound("Listing");
    // A seller's record whose wallet's escrows moved since it was counted is counted again first.
    if (!row.recordCurrent) {
      await refreshAgentRecords(db, chain.chainId, { agentIds: [row.agentId] });
      [row] = await listingById.execute({ id });
      if (!row) throw notFound("Listing");
    }
    if (row.cardText === null) throw new Error(`listing ${id} has no stored card`);
    const record = recordOf(row.record);
    const success = successFigures(record);
    const agent: ListingView["agents"] = {
      id: row.agentId,
      name: row.agentName,
      wallet_address: row.walletAddress,
      transaction_count: record.transactionCount,
    };
    const reputation: ListingView["seller_reputation"] = {
      completed: record.completed,
      refunded: record.refunded,
      disputed: record.disputed,
      success_rate: success.percent,
      rated_deals: success.ratedDeals,
    };
    const state = listingStateOf(row);
    const x402 = row.listingType === "FIXED" ? x402Of(id) : null;
    return `${row.cardText},"is_active":${row.isActive},"state":"${state}","agents":${JSON.stringify(agent)},"seller_reputation":${JSON.stringify(reputation)},"x402":${JSON.stringify(x402)}}`;
  }

  /** Where and how a FIXED listing is bought over x402 (domain/x402): the endpoint and what it is paid in. */
  function x402Of(id: string): ListingView["x402"] {
    return {
      endpoint: paths.x402Purchase(id),
      methods: ["GET", "POST"],
      x402_version: X402_VERSION,
      scheme: "exact",
      network: networkOf(chain.chainId),
      asset: deps.escrow.usdc,
      pay_to: deps.escrow.escrow,
    };
  }

  /** A listing's details (detailsJson), as the answers of writes include them. */
  async function details(id: string): Promise<ListingView> {
    return JSON.parse(await detailsJson(id)) as ListingView;
  }

  const browse = listingBrowse({ db, genericPlansDb: deps.genericPlansDb ?? db, index: deps.listingIndex });
  /** A listing with its seller and the seller's record: one prepared statement. */
  const listingById = compiled(
    db
      .select({
        cardText: listings.cardText,
        isActive: listings.isActive,
        awaitingFunding: listings.awaitingFunding,
        closedAt: listings.closedAt,
        agentId: listings.agentId,
        listingType: listings.listingType,
        agentName: agents.name,
        walletAddress: agents.walletAddress,
        record: agentRecords,
        recordCurrent: recordIsCurrent,
      })
      .from(listings)
      .innerJoin(agents, eq(agents.id, listings.agentId))
      .leftJoin(agentRecords, recordOn)
      .leftJoin(chainAccountStats, walletStatsOn(chain.chainId))
      .where(eq(listings.id, sql.placeholder("id")))
      .prepare("listing_details"),
  );

  /**
   * A BOUNTY: the listing and the escrow of its reward, between the poster and a seller named
   * later by the claim. A hosted poster's reward is funded now (listing and transaction rows are
   * written with the relayer's record, so a refused funding leaves nothing); an external poster's
   * listing stays hidden until its funding is confirmed.
   */
  async function createBounty(
    poster: Agent,
    input: CreateListingInput,
    origin: SpendOrigin,
  ): Promise<CreatedListingView | AwaitingApproval> {
    const listingId = crypto.randomUUID();
    const scheduled = await funding.schedule(input.expires_in_hours ?? DEFAULT_BOUNTY_EXPIRY_HOURS);
    const listingRow = {
      id: listingId,
      agentId: poster.id,
      title: input.title,
      description: input.description,
      category: input.category,
      listingType: "BOUNTY",
      priceWei: input.price_wei,
      isNegotiable: false,
      acceptsProposals: input.accepts_proposals ?? false,
      isActive: poster.hosted,
      awaitingFunding: !poster.hosted,
      bountyDeliveryHours: input.deadline_hours ?? DEFAULT_DELIVERY_HOURS,
      bountyExpiresAt: scheduled.deadline,
    };
    const transaction: typeof transactions.$inferSelect = {
      id: crypto.randomUUID(),
      listingId,
      buyerAgentId: poster.id,
      sellerAgentId: null,
      amountWei: input.price_wei,
      currency: "USDC",
      description: input.title,
      ...scheduled,
      createdAt: new Date(),
      escrowRef: null,
    };
    if (poster.hosted) {
      const funded = await funding.fundHosted(
        poster,
        transaction,
        zeroAddress,
        {
          action: "bounty",
          request: {
            title: input.title,
            description: input.description,
            price_wei: input.price_wei,
            category: input.category,
            ...(input.accepts_proposals !== undefined && { accepts_proposals: input.accepts_proposals }),
            ...(input.deadline_hours !== undefined && { deadline_hours: input.deadline_hours }),
            ...(input.expires_in_hours !== undefined && { expires_in_hours: input.expires_in_hours }),
          },
          summary: `Fund the bounty "${input.title}"`,
          origin,
        },
        async (tx) => {
          await tx.insert(listings).values(listingRow);
        },
      );
      if ("approval" in funded) return awaitingApproval(funded.approval);
      const txHash = funded.txHash;
      browseChanged();
      // Open to hunters now: the agents whose skills match it are told.
      await matching.bountyOpened(listingId);
      return {
        ...(await details(listingId)),
        funding: { transaction_id: transaction.id, state: "FUNDED" as const, tx_hash: txHash },
      };
    }
    await db.transaction(async (tx) => {
      await tx.insert(listings).values(listingRow);
      await tx.insert(transactions).values(transaction);
    });
    const terms = funding.termsOf(transaction, poster.walletAddress, zeroAddress);
    return {
      ...(await details(listingId)),
      funding: {
        transaction_id: transaction.id,
        state: "PENDING" as const,
        instructions: funding.instructions(
          transaction,
          terms,
          `POST ${paths.confirmTransaction(transaction.id)} with { "tx_hash": "<the fund transaction>" }; the bounty is listed once funded`,
        ),
      },
    };
  }

  /**
   * A listing of `seller`: FIXED at once, or a BOUNTY with the escrow of its reward (which a hosted
   * poster's spending caps judge: `origin` says who asked, its key by default).
   */
  async function create(
    seller: Agent,
    input: CreateListingInput,
    origin: SpendOrigin = { kind: "agent" },
  ): Promise<CreatedListingView | AwaitingApproval> {
    checkPriceUsdc(input.price_usdc, input.price_wei);
    if (input.listing_type === "BOUNTY") return createBounty(seller, input, origin);
    if (input.deadline_hours !== undefined || input.expires_in_hours !== undefined) {
      throw badRequest("deadline_hours and expires_in_hours are for BOUNTY listings");
    }
    if (input.accepts_proposals) throw badRequest("accepts_proposals is for BOUNTY listings");
    const [created] = await db
      .insert(listings)
      .values({
        agentId: seller.id,
        title: input.title,
        description: input.description,
        category: input.category,
        listingType: input.listing_type,
        priceWei: input.price_wei,
        isNegotiable: input.is_negotiable,
      })
      .returning({ id: listings.id });
    if (!created) throw new Error("insert returned no row");
    browseChanged();
    return details(created.id);
  }

  /** The listing `id` if `agentId` owns it: 404 when unknown (or not a uuid), 403 when someone else's. */
  async function ownListing(id: string, agentId: string) {
    if (!isUuid(id)) throw notFound("Listing");
    const [listing] = await db
      .select({
        agentId: listings.agentId,
        priceWei: listings.priceWei,
        listingType: listings.listingType,
        awaitingFunding: listings.awaitingFunding,
        closedAt: listings.closedAt,
      })
      .from(listings)
      .where(eq(listings.id, id));
    if (!listing) throw notFound("Listing");
    if (listing.agentId !== agentId) throw forbidden("This listing belongs to another agent");
    return listing;
  }

  /** Changes `agentId`'s own listing; a bounty's reward cannot change, nor can it be listed before it is funded. */
  async function update(agentId: string, id: string, input: UpdateListingInput): Promise<ListingView> {
    const listing = await ownListing(id, agentId);
    checkPriceUsdc(input.price_usdc, input.price_wei ?? listing.priceWei);
    if (listing.listingType === "BOUNTY" && input.price_wei !== undefined && input.price_wei !== listing.priceWei) {
      throw conflict("A bounty's reward is in escrow: it cannot change");
    }
    if (listing.closedAt !== null && input.is_active === true) {
      throw new ConflictError(
        "This listing is closed for good: it cannot be listed again. Create a new listing to offer it again",
        { listing_id: id, state: "closed" },
        "listing_closed",
      );
    }
    if (listing.awaitingFunding && input.is_active === true) {
      throw conflict(`This bounty is listed once its reward is funded: POST ${paths.confirmTransaction("{id}")}`);
    }
    const changes = {
      ...(input.price_wei !== undefined && { priceWei: input.price_wei }),
      ...(input.is_active !== undefined && { isActive: input.is_active }),
      ...(input.is_negotiable !== undefined && { isNegotiable: input.is_negotiable }),
      ...(input.title !== undefined && { title: input.title }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.category !== undefined && { category: input.category }),
    };
    if (Object.keys(changes).length > 0) {
      await db
        .update(listings)
        .set({ ...changes, updatedAt: new Date() })
        .where(and(eq(listings.id, id), eq(listings.agentId, agentId)));
      browseChanged();
      // A bounty listed again, or at another price, is news to the agents it matches (once per price).
      if (listing.listingType === "BOUNTY" && (changes.isActive === true || changes.priceWei !== undefined)) {
        await matching.bountyOpened(id);
      }
    }
    return details(id);
  }

  /**
   * Closes `agentId`'s own listing for good: inactive, and never listed again (it stays readable
   * by id; offers on it can no longer be bought). Repeating it is harmless.
   */
  async function deactivate(agentId: string, id: string): Promise<ListingView> {
    await ownListing(id, agentId);
    await db
      .update(listings)
      .set({ isActive: false, closedAt: new Date(), updatedAt: new Date() })
      .where(and(eq(listings.id, id), eq(listings.agentId, agentId), isNull(listings.closedAt)));
    browseChanged();
    return details(id);
  }

  /** `agentId`'s own listings in every state, newest first, a page at a time. */
  async function own(agentId: string, input: OwnListingsInput) {
    const rows = await db
      .select({
        listing: listings,
        position: timestampPosition(listings.createdAt),
      })
      .from(listings)
      .where(and(eq(listings.agentId, agentId), olderThanCursor(listings.createdAt, listings.id, input.cursor)))
      .orderBy(desc(listings.createdAt), desc(listings.id))
      .limit(input.limit + 1);
    const { page, nextCursor } = keysetPage(rows, input.limit, (row) => ({ at: row.position, id: row.listing.id }));
    const views: OwnListingView[] = page.map(({ listing }) => ({
      id: listing.id,
      title: listing.title,
      description: listing.description,
      category: storedCategory(listing.category),
      listing_type: storedListingType(listing.listingType),
      price_wei: listing.priceWei,
      price_usdc: formatUsdc(listing.priceWei),
      currency: "USDC",
      is_active: listing.isActive,
      state: listingStateOf(listing),
      is_negotiable: listing.isNegotiable,
      accepts_proposals: listing.acceptsProposals,
      times_purchased: listing.timesPurchased,
      created_at: listing.createdAt.toISOString(),
      updated_at: listing.updatedAt.toISOString(),
    }));
    return { listings: views, nextCursor };
  }

  return { browse, details, detailsJson, create, update, deactivate, own };
}

export type ListingUseCases = ReturnType<typeof listingUseCases>;
