import { and, asc, desc, eq, gte, lte, ne, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { chainAccountStats } from "../db/chain-views.ts";
import type { Database } from "../db/client.ts";
import { compiled } from "../db/compiled-statement.ts";
import { decodeCursor, encodeCursor } from "../db/cursor.ts";
import { agents, listings } from "../db/schema.ts";
import {
  KEYWORD_MAX_WORDS,
  type ListingCategory,
  type ListingSort,
  type ListingType,
  STARTER_MAX_WEI,
} from "../schemas/listing.ts";
import { badRequest } from "./errors.ts";
import { isUuid } from "./ids.ts";
import { formatUsdc, formatUsdcSql } from "./money.ts";
import { formatRating, formatRatingSql } from "./ratings.ts";
import { tierSql } from "./track-record.ts";

/*
 * The browse of active listings: every filter, three sorts, keyset pages. One statement per
 * request: the page, its sellers and the sellers' records (for their tiers) in one round trip.
 * Its SQL depends only on which filters are present and the sort (the request's "shape"): each
 * shape is built once and prepared, so a request neither builds SQL nor has Postgres plan it
 * again; the values travel as parameters.
 */

/** A page of the browse with each listing as its JSON text (GET /api/listings sends them as they are). */
export interface ListingPageJson {
  listings: string[];
  next_cursor: string | null;
}

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

const INT32_MAX = 2_147_483_647;

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

/** The cursor's position, checked (400 when it is not one of this sort's). */
function cursorPosition(sort: ListingSort, cursor: string): { id: string; key: string | number } {
  const position = decodeCursor(cursor);
  const { id } = position;
  if (!isUuid(id) || position.sort !== sort) throw badRequest("Invalid cursor");
  switch (sort) {
    case "newest":
      if (!isCursorTimestamp(position.at)) throw badRequest("Invalid cursor");
      return { id, key: position.at };
    case "cheapest":
      if (!position.price || !/^\d{1,78}$/.test(position.price)) throw badRequest("Invalid cursor");
      return { id, key: position.price };
    case "popular": {
      const purchased = position.purchased;
      if (!purchased || !/^\d{1,10}$/.test(purchased) || Number(purchased) > INT32_MAX) {
        throw badRequest("Invalid cursor");
      }
      return { id, key: Number(purchased) };
    }
  }
}

/** The parameters of a browse statement, by placeholder name. */
type BrowseParams = Record<string, unknown>;

/** Which filters a request has, and its sort: all a statement's SQL depends on. */
interface Shape {
  sort: ListingSort;
  filters: Array<keyof typeof FILTERS>;
}

const p = (name: string) => sql.placeholder(name);

/** Each filter's condition, over named parameters. */
const FILTERS = {
  category: () => eq(listings.category, p("category")),
  listingType: () => eq(listings.listingType, p("listingType")),
  minPrice: () => gte(listings.priceWei, p("minPrice")),
  maxPrice: () => lte(listings.priceWei, p("maxPrice")),
  excludeAgent: () => ne(listings.agentId, p("excludeAgent")),
  keyword: () => sql`${listings.search} @@ to_tsquery('simple', ${p("tsquery")})`,
  cursor: (sort: ListingSort) => {
    switch (sort) {
      case "newest":
        return sql`(${listings.createdAt}, ${listings.id}) < (${p("cursorKey")}::timestamptz, ${p("cursorId")}::uuid)`;
      case "cheapest":
        return sql`(${listings.priceWei}, ${listings.id}) > (${p("cursorKey")}::numeric, ${p("cursorId")}::uuid)`;
      case "popular":
        return sql`(${listings.timesPurchased}, ${listings.id}) < (${p("cursorKey")}::integer, ${p("cursorId")}::uuid)`;
    }
  },
} satisfies Record<string, (sort: ListingSort) => SQL>;

/** One letter per filter, for statement names. */
const FILTER_CODES: Record<keyof typeof FILTERS, string> = {
  category: "c",
  listingType: "t",
  minPrice: "l",
  maxPrice: "h",
  excludeAgent: "x",
  keyword: "k",
  cursor: "a",
};

/** The query's shape and the values of its parameters; an empty page when the keyword has no words. */
function shapeOf(query: BrowseListingsQuery): { shape: Shape; params: BrowseParams } | undefined {
  if (query.min_price && query.max_price && BigInt(query.min_price) > BigInt(query.max_price)) {
    throw badRequest("min_price must not be greater than max_price");
  }
  const filters: Shape["filters"] = [];
  const params: BrowseParams = { limit: query.limit + 1 };
  const add = (filter: keyof typeof FILTERS, values: BrowseParams) => {
    filters.push(filter);
    Object.assign(params, values);
  };
  if (query.category) add("category", { category: query.category });
  if (query.listing_type) add("listingType", { listingType: query.listing_type });
  // starter is a price ceiling: the lower of the two when both are given.
  const ceilings = [query.max_price, query.starter ? STARTER_MAX_WEI.toString() : undefined].filter(
    (value): value is string => value !== undefined,
  );
  if (query.min_price) add("minPrice", { minPrice: query.min_price });
  if (ceilings.length > 0) {
    add("maxPrice", { maxPrice: ceilings.reduce((a, b) => (BigInt(a) < BigInt(b) ? a : b)) });
  }
  if (query.exclude_agent) add("excludeAgent", { excludeAgent: query.exclude_agent });
  if (query.keyword !== undefined) {
    const tsquery = prefixTsQuery(query.keyword);
    // A keyword without letters or digits matches nothing.
    if (!tsquery) return undefined;
    add("keyword", { tsquery });
  }
  if (query.cursor) {
    const { id, key } = cursorPosition(query.sort, query.cursor);
    add("cursor", { cursorId: id, cursorKey: key });
  }
  return { shape: { sort: query.sort, filters }, params };
}

/** The columns of a listing its answers show (not the tsvector). */
export const listingFields = {
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
};

/** A listing's row (its `listingFields`) as every answer about it shows it, browse and details alike. */
export function listingSummary(
  row: {
    [K in keyof typeof listingFields]: (typeof listingFields)[K]["_"]["data"];
  },
) {
  return {
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
  };
}

/** Joins (left) the seller's indexed record to its agent row: none before its first escrow. */
export function sellerRecordOn(chainId: number) {
  return and(
    eq(chainAccountStats.chainId, chainId),
    eq(chainAccountStats.address, sql`lower(${agents.walletAddress})`),
  );
}

/** A timestamp as JavaScript's toISOString writes it (UTC, milliseconds cut, not rounded). */
function isoMillisSql(at: SQLWrapper): SQL<string> {
  return sql<string>`to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * A listing as browse answers it (listingSummary, and its seller with the seller's tier) as JSON
 * text built by Postgres, over a page of `listingFields` joined to agents and the seller's record:
 * the API sends it as it comes, instead of decoding some 30 columns per listing and encoding them
 * again. Keep it in step with listingSummary; listings.happy.test.ts compares browse with details.
 */
function listingCardSql(row: { [K in keyof typeof listingFields]: SQLWrapper }): SQL<string> {
  return sql<string>`json_build_object(
    'id', ${row.id}, 'title', ${row.title}, 'description', ${row.description}, 'category', ${row.category},
    'listing_type', ${row.listingType}, 'price_wei', (${row.priceWei})::text, 'price_usdc', ${formatUsdcSql(row.priceWei)},
    'currency', 'USDC', 'is_negotiable', ${row.isNegotiable}, 'times_purchased', ${row.timesPurchased},
    'avg_rating', ${formatRatingSql(row.ratingSum, row.ratingCount)}, 'created_at', ${isoMillisSql(row.createdAt)},
    'agent', json_build_object('id', ${row.agentId}, 'name', ${agents.name}, 'reputation_tier', ${tierSql})
  )::text`;
}

/** The columns a page is sorted by (the listings table's, or the same in a subquery). */
type SortColumns = Record<"createdAt" | "id" | "priceWei" | "timesPurchased", SQLWrapper>;

/** The browse statements of one database, built and prepared the first time a shape is asked for. */
export function listingBrowse(db: Database, chainId: number) {
  const statements = new Map<string, ReturnType<typeof prepare>>();

  function prepare(shape: Shape, name: string) {
    const conditions = [
      sql`${listings.isActive} AND ${listings.sellerListed}`,
      ...shape.filters.map((filter) => FILTERS[filter](shape.sort)),
    ];
    const sortKeys = {
      newest: (row: SortColumns) => [desc(row.createdAt), desc(row.id)],
      cheapest: (row: SortColumns) => [asc(row.priceWei), asc(row.id)],
      popular: (row: SortColumns) => [desc(row.timesPurchased), desc(row.id)],
    }[shape.sort];
    // The page is cut before its sellers are joined: joining first would join every match.
    const page = db
      .select(listingFields)
      .from(listings)
      .where(and(...conditions))
      .orderBy(...sortKeys(listings))
      .limit(p("limit"));
    const matched = page.as("matched");
    const order = sortKeys(matched);
    const statement = db
      .select({
        card: listingCardSql(matched),
        id: matched.id,
        /** created_at to the microsecond, for cursors. */
        createdAtText: sql<string>`to_char(${matched.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
        priceWei: matched.priceWei,
        timesPurchased: matched.timesPurchased,
      })
      .from(matched)
      .innerJoin(agents, eq(agents.id, matched.agentId))
      .leftJoin(chainAccountStats, sellerRecordOn(chainId))
      .orderBy(...order)
      .prepare(name);
    return compiled(statement);
  }

  function statementOf(shape: Shape) {
    // Postgres keeps 63 characters of a statement's name: each filter by its code.
    const name = `browse_${shape.sort}_${shape.filters.map((filter) => FILTER_CODES[filter]).join("") || "all"}`;
    let statement = statements.get(name);
    if (!statement) {
      statement = prepare(shape, name);
      statements.set(name, statement);
    }
    return statement;
  }

  /**
   * One page of active listings of active, unpaused agents, in `sort` order, after `cursor`: each
   * listing as the JSON Postgres built for it.
   */
  return async function browse(query: BrowseListingsQuery): Promise<ListingPageJson> {
    const shaped = shapeOf(query);
    if (!shaped) return { listings: [], next_cursor: null };
    const rows = await statementOf(shaped.shape).execute(shaped.params);
    const page = rows.slice(0, query.limit);
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
    return { listings: page.map((row) => row.card), next_cursor: nextCursor };
  };
}
