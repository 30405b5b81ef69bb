import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, asc, desc, eq, gte, lte, ne, type SQL, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import { requireAgent } from "../auth/require-agent.ts";
import { decodeCursor, encodeCursor } from "../db/cursor.ts";
import { agents, listings, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { badRequest, conflict, forbidden, notFound } from "../domain/errors.ts";
import { escrowFunding } from "../domain/escrow-funding.ts";
import { isUuid } from "../domain/ids.ts";
import { formatUsdc } from "../domain/money.ts";
import { type AgentRecord, recordsOf } from "../domain/track-record.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { ReadCache } from "../http/read-cache.ts";
import { sendSerializedJson, serializeJson } from "../http/serialized-json.ts";
import {
  bearerSecurity,
  Cursor,
  ErrorBody,
  errorResponses,
  Limit,
  PositiveWei,
  QueryBoolean,
  Uuid,
  Wei,
} from "../schemas/common.ts";
import { FundingInstructions, InsufficientBalance } from "../schemas/funding.ts";

/*
 * /api/listings: browse, details, create, update, deactivate.
 */

export const LISTING_CATEGORIES = ["research", "writing", "coding", "analysis", "design", "data", "other"] as const;
export const LISTING_TYPES = ["FIXED", "BOUNTY"] as const;
export const LISTING_SORTS = ["newest", "cheapest", "popular"] as const;
type Sort = (typeof LISTING_SORTS)[number];

/** The starter filter: listings priced at or under $1. */
export const STARTER_MAX_WEI = 1_000_000n;
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 10_000;
/** Words of a keyword search beyond this are ignored. */
const KEYWORD_MAX_WORDS = 8;
const INT32_MAX = 2_147_483_647;

const Category = z.enum(LISTING_CATEGORIES).openapi({ description: "One of the listing categories" });
const ListingType = z.enum(LISTING_TYPES);
const Title = z
  .string()
  .trim()
  .min(1)
  .max(TITLE_MAX)
  .openapi({ description: `1 to ${TITLE_MAX} characters (trimmed)` });
const Description = z
  .string()
  .trim()
  .min(1)
  .max(DESCRIPTION_MAX)
  .openapi({ description: `1 to ${DESCRIPTION_MAX.toLocaleString("en")} characters (trimmed)` });
const PriceUsdc = z
  .string()
  .regex(/^\d{1,78}\.\d{2}$/, "must be a decimal with two places, e.g. 1.50")
  .openapi({
    description: "Optional cross-check: must equal price_wei in USDC with two decimals, rounded down",
    example: "1.50",
  });

const CreateListingBody = z
  .object({
    agent_id: Uuid.openapi({ description: "The caller's agent id" }),
    title: Title,
    description: Description,
    price_wei: PositiveWei.openapi({ description: "Price in USDC wei (1 USDC = 1000000)", example: "1500000" }),
    category: Category.default("other"),
    listing_type: ListingType.default("FIXED").openapi({
      description:
        "FIXED (default), or BOUNTY: a reward funded in escrow at once (hosted poster) or through the `funding` instructions (external poster; hidden from browse until funded)",
    }),
    price_usdc: PriceUsdc.optional(),
    is_negotiable: z.boolean().default(true),
    deadline_hours: z.number().int().min(1).max(720).optional().openapi({
      description: "BOUNTY only: hours a claimant has to deliver, from the claim (default 72)",
    }),
    expires_in_hours: z.number().int().min(1).max(8_760).optional().openapi({
      description: "BOUNTY only: hours it stays open; unclaimed after that, the reward may be refunded (default 720)",
    }),
  })
  .openapi("CreateListing");

const BountyFunding = z
  .object({
    transaction_id: Uuid,
    state: z.enum(["FUNDED", "PENDING"]),
    tx_hash: z.string().optional(),
    instructions: FundingInstructions.optional(),
  })
  .openapi("BountyFunding");

const PatchListingBody = z
  .object({
    price_wei: PositiveWei.optional(),
    price_usdc: PriceUsdc.optional().openapi({
      description: "Must agree with price_wei, or with the stored price when price_wei is absent",
    }),
    is_active: z.boolean().optional(),
    is_negotiable: z.boolean().optional(),
    title: Title.optional(),
    description: Description.optional(),
    category: Category.optional(),
  })
  .openapi("PatchListing");

const ListingDetails = z
  .object({
    id: Uuid,
    title: z.string(),
    description: z.string(),
    category: Category,
    listing_type: ListingType,
    price_wei: z.string(),
    price_usdc: z.string(),
    currency: z.literal("USDC"),
    is_active: z.boolean(),
    is_negotiable: z.boolean(),
    times_purchased: z.number().int(),
    avg_rating: z.string().openapi({ description: 'Average rating, two decimals; "0.00" without ratings' }),
    created_at: z.string(),
    agents: z.object({
      id: Uuid,
      name: z.string(),
      wallet_address: z.string(),
      transaction_count: z.number().int(),
    }),
    seller_reputation: z.object({
      completed: z.number().int(),
      refunded: z.number().int(),
      success_rate: z.number().int().openapi({ description: "Completed over settled escrows, percent, rounded down" }),
    }),
  })
  .openapi("Listing");

const BrowseListing = z
  .object({
    id: Uuid,
    title: z.string(),
    description: z.string(),
    category: Category,
    listing_type: ListingType,
    price_wei: z.string(),
    price_usdc: z.string(),
    currency: z.literal("USDC"),
    is_negotiable: z.boolean(),
    times_purchased: z.number().int(),
    avg_rating: z.string(),
    created_at: z.string(),
    agent: z.object({ id: Uuid, name: z.string(), reputation_tier: z.string() }),
  })
  .openapi("BrowseListing");

const ListingPage = z
  .object({ listings: z.array(BrowseListing), next_cursor: z.string().nullable() })
  .openapi("ListingPage");

const BrowseQuery = z.strictObject({
  category: Category.optional(),
  listing_type: ListingType.optional(),
  min_price: Wei.optional().openapi({ description: "Minimum price in wei (inclusive)" }),
  max_price: Wei.optional().openapi({ description: "Maximum price in wei (inclusive); not below min_price" }),
  starter: QueryBoolean.optional().openapi({
    description: `true: only listings priced at or under ${STARTER_MAX_WEI} wei ($1); false: no filter`,
  }),
  keyword: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      description: `Words (letters and digits, at most ${KEYWORD_MAX_WORDS}) that must all start a word of the title or description`,
    }),
  sort: z
    .enum(LISTING_SORTS)
    .default("newest")
    .openapi({ description: "newest (default), cheapest (price ascending) or popular (most purchased first)" }),
  limit: Limit,
  exclude_agent: Uuid.optional().openapi({ description: "Leave out this agent's listings" }),
  cursor: Cursor,
});

/** Not validated as a uuid: a path id that is not one answers 404 (API.md). */
const IdParam = z.object({ id: z.string().openapi({ format: "uuid" }) });

/** A BOUNTY's defaults: hours to deliver after the claim, and hours it stays open. */
const DEFAULT_BOUNTY_DELIVERY_HOURS = 72;
const DEFAULT_BOUNTY_EXPIRY_HOURS = 720;

/** Answered by the framework for a body that is not application/json. */
const unsupportedMediaType = {
  415: { description: "Body not sent as application/json", content: { "application/json": { schema: ErrorBody } } },
};

/** Average of ratings as a decimal with two places, rounded half up. */
export function formatRating(sum: number, count: number): string {
  if (count <= 0) return "0.00";
  const hundredths = (BigInt(sum) * 200n + BigInt(count)) / (2n * BigInt(count));
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, "0")}`;
}

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
function afterCursor(sort: Sort, cursor: string): SQL {
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

function orderOf(sort: Sort): SQL[] {
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

function checkPriceUsdc(priceUsdc: string | undefined, priceWei: string) {
  if (priceUsdc === undefined) return;
  const expected = formatUsdc(priceWei);
  if (priceUsdc !== expected) {
    throw badRequest(`price_usdc ${priceUsdc} does not match price_wei ${priceWei} (${expected} USDC)`, {
      expected_price_usdc: expected,
    });
  }
}

export function listingRoutes(deps: Deps) {
  const readCache = deps.readCache ?? new ReadCache(0);
  const funding = escrowFunding(deps);
  const { db, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const auth = requireAgent(db);

  async function details(id: string) {
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
      category: row.category as (typeof LISTING_CATEGORIES)[number],
      listing_type: row.listingType as (typeof LISTING_TYPES)[number],
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

  /**
   * A BOUNTY: the listing and the escrow of its reward, between the poster and a seller named
   * later by the claim. A hosted poster's reward is funded now (listing and transaction rows are
   * written with the relayer's record, so a refused funding leaves nothing); an external poster's
   * listing stays hidden until its funding is confirmed.
   */
  async function createBounty(poster: typeof agents.$inferSelect, body: z.infer<typeof CreateListingBody>) {
    const listingId = crypto.randomUUID();
    const scheduled = await funding.schedule(body.expires_in_hours ?? DEFAULT_BOUNTY_EXPIRY_HOURS);
    const listingRow = {
      id: listingId,
      agentId: poster.id,
      title: body.title,
      description: body.description,
      category: body.category,
      listingType: "BOUNTY",
      priceWei: body.price_wei,
      isNegotiable: false,
      isActive: poster.hosted,
      awaitingFunding: !poster.hosted,
      bountyDeliveryHours: body.deadline_hours ?? DEFAULT_BOUNTY_DELIVERY_HOURS,
      bountyExpiresAt: scheduled.deadline,
    };
    const transaction: typeof transactions.$inferSelect = {
      id: crypto.randomUUID(),
      listingId,
      buyerAgentId: poster.id,
      sellerAgentId: null,
      amountWei: body.price_wei,
      currency: "USDC",
      description: body.title,
      ...scheduled,
      createdAt: new Date(),
    };
    if (poster.hosted) {
      const txHash = await funding.fundHosted(poster, transaction, zeroAddress, async (tx) => {
        await tx.insert(listings).values(listingRow);
      });
      readCache.invalidate();
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

  /** The listing `id` if the caller owns it: 404 when unknown (or not a uuid), 403 when someone else's. */
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

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags: ["Listings"],
      summary: "Browse active listings",
      description:
        "Active listings of active, unpaused agents, newest first by default. Pages with `limit` and `cursor` (the `next_cursor` of the previous page, for the same sort).",
      request: { query: BrowseQuery },
      responses: {
        200: {
          description: "A page of listings; next_cursor is null on the last page",
          content: {
            "application/json": {
              schema: ListingPage,
            },
          },
        },
        ...errorResponses(400),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      if (query.min_price && query.max_price && BigInt(query.min_price) > BigInt(query.max_price)) {
        throw badRequest("min_price must not be greater than max_price");
      }
      // Identical browse requests share one read and one serialization for a moment (ReadCache).
      const cacheKey = `browse:${JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)))}`;
      const body = await readCache.get(cacheKey, async () => serializeJson(await browse(query)));
      return sendSerializedJson(c, body, 200);
    },
  );

  /** One page of the browse answer. */
  async function browse(query: z.infer<typeof BrowseQuery>): Promise<z.infer<typeof ListingPage>> {
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

    {
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
        category: row.category as (typeof LISTING_CATEGORIES)[number],
        listing_type: row.listingType as (typeof LISTING_TYPES)[number],
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
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Listings"],
      summary: "Listing details",
      description: "Any listing, active or not, with its seller and the seller's track record.",
      request: { params: IdParam },
      responses: {
        200: { description: "The listing", content: { "application/json": { schema: ListingDetails } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!isUuid(id)) throw notFound("Listing");
      return c.json(await details(id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/",
      middleware: [auth] as const,
      tags: ["Listings"],
      summary: "Create a listing",
      description:
        "`agent_id` must be the caller's. A paused agent may create listings; browse shows them once it is unpaused.",
      security: bearerSecurity,
      request: { body: { required: true, content: { "application/json": { schema: CreateListingBody } } } },
      responses: {
        201: {
          description: "Created. A BOUNTY also answers `funding`: FUNDED (hosted poster) or PENDING with instructions.",
          content: {
            "application/json": {
              schema: ListingDetails.extend({ funding: BountyFunding.optional() }).openapi("CreatedListing"),
            },
          },
        },
        402: {
          description: "BOUNTY: the poster's balance is short",
          content: { "application/json": { schema: InsufficientBalance } },
        },
        ...errorResponses(400, 401, 403, 413),
        ...unsupportedMediaType,
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      // A body agent_id of another agent was refused 403 by the auth middleware.
      const caller = c.get("agent").id;
      checkPriceUsdc(body.price_usdc, body.price_wei);
      if (body.listing_type === "BOUNTY") return c.json(await createBounty(c.get("agent").row, body), 201);
      if (body.deadline_hours !== undefined || body.expires_in_hours !== undefined) {
        throw badRequest("deadline_hours and expires_in_hours are for BOUNTY listings");
      }
      const [created] = await db
        .insert(listings)
        .values({
          agentId: caller,
          title: body.title,
          description: body.description,
          category: body.category,
          listingType: body.listing_type,
          priceWei: body.price_wei,
          isNegotiable: body.is_negotiable,
        })
        .returning({ id: listings.id });
      if (!created) throw new Error("insert returned no row");
      readCache.invalidate();
      c.get("logger").info({ listing_id: created.id }, "listing created");
      return c.json(await details(created.id), 201);
    },
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      middleware: [auth] as const,
      tags: ["Listings"],
      summary: "Update own listing",
      security: bearerSecurity,
      request: {
        params: IdParam,
        body: { required: true, content: { "application/json": { schema: PatchListingBody } } },
      },
      responses: {
        200: { description: "The updated listing", content: { "application/json": { schema: ListingDetails } } },
        ...errorResponses(400, 401, 403, 404, 409, 413),
        ...unsupportedMediaType,
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const caller = c.get("agent").id;
      const listing = await ownListing(id, caller);
      checkPriceUsdc(body.price_usdc, body.price_wei ?? listing.priceWei);
      if (listing.listingType === "BOUNTY" && body.price_wei !== undefined && body.price_wei !== listing.priceWei) {
        throw conflict("A bounty's reward is in escrow: it cannot change");
      }
      if (listing.awaitingFunding && body.is_active === true) {
        throw conflict("This bounty is listed once its reward is funded: POST /api/transactions/{id}/confirm");
      }
      const changes = {
        ...(body.price_wei !== undefined && { priceWei: body.price_wei }),
        ...(body.is_active !== undefined && { isActive: body.is_active }),
        ...(body.is_negotiable !== undefined && { isNegotiable: body.is_negotiable }),
        ...(body.title !== undefined && { title: body.title }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.category !== undefined && { category: body.category }),
      };
      if (Object.keys(changes).length > 0) {
        await db
          .update(listings)
          .set({ ...changes, updatedAt: new Date() })
          .where(and(eq(listings.id, id), eq(listings.agentId, caller)));
        readCache.invalidate();
      }
      return c.json(await details(id), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      middleware: [auth] as const,
      tags: ["Listings"],
      summary: "Deactivate own listing",
      description: "Sets is_active to false (the listing stays readable by id). Repeating it is harmless.",
      security: bearerSecurity,
      request: { params: IdParam },
      responses: {
        200: { description: "The deactivated listing", content: { "application/json": { schema: ListingDetails } } },
        ...errorResponses(401, 403, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const caller = c.get("agent").id;
      await ownListing(id, caller);
      await db
        .update(listings)
        .set({ isActive: false, updatedAt: new Date() })
        .where(and(eq(listings.id, id), eq(listings.agentId, caller), eq(listings.isActive, true)));
      readCache.invalidate();
      return c.json(await details(id), 200);
    },
  );

  return app;
}
