import { and, asc, desc, eq, gte, lte, ne, type SQL, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import { decodeCursor, encodeCursor } from "../db/cursor.ts";
import { agents, listings, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import {
  KEYWORD_MAX_WORDS,
  type ListingCategory,
  type ListingPageView,
  type ListingSort,
  type ListingType,
  type ListingView,
  STARTER_MAX_WEI,
} from "../schemas/listing.ts";
import { badRequest, conflict, forbidden, notFound } from "./errors.ts";
import { type EscrowFunding, escrowFunding } from "./escrow-funding.ts";
import { isUuid } from "./ids.ts";
import { formatUsdc } from "./money.ts";
import { formatRating } from "./ratings.ts";
import { type AgentRecord, recordsOf } from "./track-record.ts";

/*
 * Listings: the browse query, a listing's details, and an agent's own listings created (a BOUNTY
 * with the escrow of its reward), updated and deactivated. Every write forgets the cached browse
 * answers (`readCache`), so this instance reads its own writes at once.
 */

type Agent = typeof agents.$inferSelect;

/** A BOUNTY's defaults: hours to deliver after the claim, and hours it stays open. */
const DEFAULT_BOUNTY_DELIVERY_HOURS = 72;
const DEFAULT_BOUNTY_EXPIRY_HOURS = 720;
const INT32_MAX = 2_147_483_647;

/** The browse filters, as the API names them (validated by the route). */
export interface BrowseListingsQuery {
  category?: ListingCategory;
  listing_type?: ListingType;
  min_price?: string;
  max_price?: string;
  starter?: boolean;
  keyword?: string;
  sort: ListingSort;
  limit: number;
  exclude_agent?: string;
  cursor?: string;
}

/** A new listing, as the API names its fields (validated by the route). */
export interface CreateListingInput {
  title: string;
  description: string;
  price_wei: string;
  category: ListingCategory;
  listing_type: ListingType;
  price_usdc?: string;
  is_negotiable: boolean;
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

/** A BOUNTY's escrow as its creation leaves it: funded now (hosted poster) or awaiting the poster's funding. */
export type BountyFundingView =
  | { transaction_id: string; state: "FUNDED"; tx_hash: string }
  | { transaction_id: string; state: "PENDING"; instructions: ReturnType<EscrowFunding["instructions"]> };

export type CreatedListingView = ListingView & { funding?: BountyFundingView };

/**
 * A keyword as a prefix tsquery: every word (letters, their accents, digits) as `word:*`, joined by
 * `&`. Everything else only separates words, so no tsquery operator ever gets through.
 */
export function prefixTsQuery(keyword: string): string | undefined {
  const words = (keyword.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).slice(0, KEYWORD_MAX_WORDS);
  return words.length === 0 ? undefined : words.map((word) => `${word}:*`).join(" & ");
}

/** created_at in cursors: UTC with microseconds, as Postgres keeps it (a JS Date has milliseconds only). */
const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A real instant (no 31 February), so that Postgres' cast cannot fail on it. */
function isCursorTimestamp(value: string | undefined): value is string {
  if (!value || !CURSOR_TIMESTAMP.test(value)) return false;
  const milliseconds = `${value.slice(0, 23)}Z`;
  const date = new Date(milliseconds);
  return !Number.isNaN(date.getTime()) && date.toISOString() === milliseconds;
}

/** The keyset condition after a cursor of `sort` (400 when the cursor is not one of this sort's). */
function afterCursor(sort: ListingSort, cursor: string): SQL {
  const position = decodeCursor(cursor);
  const { id } = position;
  if (!isUuid(id) || position.sort !== sort) throw badRequest("Invalid cursor");
  switch (sort) {
    case "newest": {
      const at = position.at;
      if (!isCursorTimestamp(at)) throw badRequest("Invalid cursor");
      return sql`(${listings.createdAt}, ${listings.id}) < (${at}::timestamptz, ${id}::uuid)`;
    }
    case "cheapest": {
      const price = position.price;
      if (!price || !/^\d{1,78}$/.test(price)) throw badRequest("Invalid cursor");
      return sql`(${listings.priceWei}, ${listings.id}) > (${price}::numeric, ${id}::uuid)`;
    }
    case "popular": {
      const purchased = position.purchased;
      if (!purchased || !/^\d{1,10}$/.test(purchased) || Number(purchased) > INT32_MAX) {
        throw badRequest("Invalid cursor");
      }
      return sql`(${listings.timesPurchased}, ${listings.id}) < (${Number(purchased)}::integer, ${id}::uuid)`;
    }
  }
}

function orderOf(sort: ListingSort): SQL[] {
  switch (sort) {
    case "newest":
      return [desc(listings.createdAt), desc(listings.id)];
    case "cheapest":
      return [asc(listings.priceWei), asc(listings.id)];
    case "popular":
      return [desc(listings.timesPurchased), desc(listings.id)];
  }
}

/** The columns a listing answer needs (not the tsvector), with its seller. */
const listingColumns = {
  id: listings.id,
  agentId: listings.agentId,
  title: listings.title,
  description: listings.description,
  category: listings.category,
  listingType: listings.listingType,
  priceWei: listings.priceWei,
  isNegotiable: listings.isNegotiable,
  isActive: listings.isActive,
  timesPurchased: listings.timesPurchased,
  ratingSum: listings.ratingSum,
  ratingCount: listings.ratingCount,
  createdAt: listings.createdAt,
  /** created_at to the microsecond, for cursors. */
  createdAtText: sql<string>`to_char(${listings.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
  agentName: agents.name,
  walletAddress: agents.walletAddress,
};

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
  deps: Pick<Deps, "db" | "config" | "chain" | "escrow" | "relayer" | "indexed" | "readCache">,
) {
  const { db, chain } = deps;
  const funding = escrowFunding(deps);
  /** Forgets the cached browse answers after a write that may change one. */
  const browseChanged = () => deps.readCache?.invalidate();

  /** Any listing, active or not, with its seller and the seller's track record; 404 when unknown. */
  async function details(id: string): Promise<ListingView> {
    const [row] = await db
      .select(listingColumns)
      .from(listings)
      .innerJoin(agents, eq(agents.id, listings.agentId))
      .where(eq(listings.id, id));
    if (!row) throw notFound("Listing");
    const record = (await recordsOf(db, chain.chainId, [row.walletAddress])).get(
      row.walletAddress.toLowerCase(),
    ) as AgentRecord;
    const settled = record.completed + record.refunded;
    return {
      id: row.id,
      title: row.title,
      description: row.description,
      category: row.category as ListingCategory,
      listing_type: row.listingType as ListingType,
      price_wei: row.priceWei,
      price_usdc: formatUsdc(row.priceWei),
      currency: "USDC" as const,
      is_active: row.isActive,
      is_negotiable: row.isNegotiable,
      times_purchased: row.timesPurchased,
      avg_rating: formatRating(row.ratingSum, row.ratingCount),
      created_at: row.createdAt.toISOString(),
      agents: {
        id: row.agentId,
        name: row.agentName,
        wallet_address: row.walletAddress,
        transaction_count: record.transactionCount,
      },
      seller_reputation: {
        completed: record.completed,
        refunded: record.refunded,
        success_rate: settled === 0 ? 0 : Math.floor((record.completed * 100) / settled),
      },
    };
  }

  /** One page of active listings of active, unpaused agents, in `sort` order, after `cursor`. */
  async function browse(query: BrowseListingsQuery): Promise<ListingPageView> {
    if (query.min_price && query.max_price && BigInt(query.min_price) > BigInt(query.max_price)) {
      throw badRequest("min_price must not be greater than max_price");
    }
    const conditions: SQL[] = [eq(listings.isActive, true), eq(agents.isActive, true), eq(agents.isPaused, false)];
    if (query.category) conditions.push(eq(listings.category, query.category));
    if (query.listing_type) conditions.push(eq(listings.listingType, query.listing_type));
    if (query.min_price) conditions.push(gte(listings.priceWei, query.min_price));
    if (query.max_price) conditions.push(lte(listings.priceWei, query.max_price));
    if (query.starter) conditions.push(lte(listings.priceWei, STARTER_MAX_WEI.toString()));
    if (query.exclude_agent) conditions.push(ne(listings.agentId, query.exclude_agent));
    if (query.keyword !== undefined) {
      const tsquery = prefixTsQuery(query.keyword);
      // A keyword without letters or digits matches nothing.
      if (!tsquery) return { listings: [], next_cursor: null };
      conditions.push(sql`${listings.search} @@ to_tsquery('simple', ${tsquery})`);
    }
    if (query.cursor) conditions.push(afterCursor(query.sort, query.cursor));

    const rows = await db
      .select(listingColumns)
      .from(listings)
      .innerJoin(agents, eq(agents.id, listings.agentId))
      .where(and(...conditions))
      .orderBy(...orderOf(query.sort))
      .limit(query.limit + 1);
    const page = rows.slice(0, query.limit);
    // The sellers' tiers for the whole page, in one query.
    const records = await recordsOf(
      db,
      chain.chainId,
      page.map((row) => row.walletAddress),
    );
    const items = page.map((row) => ({
      id: row.id,
      title: row.title,
      description: row.description,
      category: row.category as ListingCategory,
      listing_type: row.listingType as ListingType,
      price_wei: row.priceWei,
      price_usdc: formatUsdc(row.priceWei),
      currency: "USDC" as const,
      is_negotiable: row.isNegotiable,
      times_purchased: row.timesPurchased,
      avg_rating: formatRating(row.ratingSum, row.ratingCount),
      created_at: row.createdAt.toISOString(),
      agent: {
        id: row.agentId,
        name: row.agentName,
        reputation_tier: (records.get(row.walletAddress.toLowerCase()) as AgentRecord).tier,
      },
    }));
    const last = page[page.length - 1];
    let nextCursor: string | null = null;
    if (rows.length > query.limit && last) {
      const key: Record<string, string> =
        query.sort === "newest"
          ? { at: last.createdAtText }
          : query.sort === "cheapest"
            ? { price: last.priceWei }
            : { purchased: String(last.timesPurchased) };
      nextCursor = encodeCursor({ sort: query.sort, ...key, id: last.id });
    }
    return { listings: items, next_cursor: nextCursor };
  }

  /**
   * A BOUNTY: the listing and the escrow of its reward, between the poster and a seller named
   * later by the claim. A hosted poster's reward is funded now (listing and transaction rows are
   * written with the relayer's record, so a refused funding leaves nothing); an external poster's
   * listing stays hidden until its funding is confirmed.
   */
  async function createBounty(poster: Agent, input: CreateListingInput): Promise<CreatedListingView> {
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
      isActive: poster.hosted,
      awaitingFunding: !poster.hosted,
      bountyDeliveryHours: input.deadline_hours ?? DEFAULT_BOUNTY_DELIVERY_HOURS,
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
    };
    if (poster.hosted) {
      const txHash = await funding.fundHosted(poster, transaction, zeroAddress, async (tx) => {
        await tx.insert(listings).values(listingRow);
      });
      browseChanged();
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
          `POST /api/transactions/${transaction.id}/confirm with { "tx_hash": "<the fund transaction>" }; the bounty is listed once funded`,
        ),
      },
    };
  }

  /** A listing of `seller`: FIXED at once, or a BOUNTY with the escrow of its reward. */
  async function create(seller: Agent, input: CreateListingInput): Promise<CreatedListingView> {
    checkPriceUsdc(input.price_usdc, input.price_wei);
    if (input.listing_type === "BOUNTY") return createBounty(seller, input);
    if (input.deadline_hours !== undefined || input.expires_in_hours !== undefined) {
      throw badRequest("deadline_hours and expires_in_hours are for BOUNTY listings");
    }
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
    if (listing.awaitingFunding && input.is_active === true) {
      throw conflict("This bounty is listed once its reward is funded: POST /api/transactions/{id}/confirm");
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
    }
    return details(id);
  }

  /** Sets `agentId`'s own listing inactive (it stays readable by id); repeating it is harmless. */
  async function deactivate(agentId: string, id: string): Promise<ListingView> {
    await ownListing(id, agentId);
    await db
      .update(listings)
      .set({ isActive: false, updatedAt: new Date() })
      .where(and(eq(listings.id, id), eq(listings.agentId, agentId), eq(listings.isActive, true)));
    browseChanged();
    return details(id);
  }

  return { browse, details, create, update, deactivate };
}

export type ListingUseCases = ReturnType<typeof listingUseCases>;
