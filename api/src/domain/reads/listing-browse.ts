import { and, asc, desc, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { compiled, literalLimit } from "../../db/compiled-statement.ts";
import { agents, listings, listingWords } from "../../db/schema.ts";
import { decodeCursor, encodeCursor, timestampPosition } from "../shared/cursor.ts";
import { badRequest } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import {
  DEFAULT_DELIVERY_HOURS,
  KEYWORD_MAX_WORDS,
  LISTING_CATEGORIES,
  type ListingCategory,
  type ListingSort,
  type ListingSortName,
  type ListingType,
  listingOrderOf,
  STARTER_MAX_WEI,
} from "../shared/listing-terms.ts";
import { formatUsdcSql } from "../shared/money.ts";
import { agentIdsOwnedBy } from "../shared/owned-agents.ts";
import { isoMillisSql, jsonConstant, jsonLiteral, jsonObject, jsonString, openJsonObject } from "./json-text.ts";
import { type IndexQuery, microsecondsOf, priceOf, type SortPoint, timestampOfMicroseconds } from "./listing-index.ts";
import {
  type ListingIndexSync,
  prefixesOfTsQuery,
  type SellerColumns,
  sellerColumnsOfAgents,
} from "./listing-index-sync.ts";
import { formatRatingSql } from "./ratings.ts";

/*
 * The browse of active listings: every filter, four sorts, keyset pages. One statement per
 * request: the page, its sellers and their kept tiers (kept-tiers.ts), each listing as the JSON
 * text the answer sends. Its SQL depends only on which filters are present, the sort and the page's size bucket
 * (the request's "shape"): each shape is built once and prepared, and where its best plan does not
 * depend on the values, Postgres keeps one plan for it (see planDependsOnValues). A keyword of one
 * plain word reads app.listing_words (wordPage), any other the listings' tsvector.
 */

/**
 * A page of the browse: its listings as one text, each listing's JSON joined by commas, in order
 * (GET /api/listings sends it as it is, inside the array's brackets).
 */
export interface ListingPageJson {
  cards: string;
  next_cursor: string | null;
}

/** The browse filters, as the API names them (validated by the route). */
export interface BrowseListingsQuery {
  category?: ListingCategory;
  /** Any of these categories; with `category` (or a `skill` naming one), the listings in all of them. */
  categories?: ListingCategory[];
  listing_type?: ListingType;
  min_price?: string;
  max_price?: string;
  starter?: boolean;
  keyword?: string;
  /** A skill word: a category's name filters by that category, any other word is one more keyword word. */
  skill?: string;
  /** An owner's wallet address: only the listings of the agents it owns (owned-agents.ts). */
  owner?: string;
  /** true: also listings no longer active (delisted, bounties closed or expired), still of listed sellers. */
  include_completed?: boolean;
  sort: ListingSortName;
  limit: number;
  exclude_agent?: string;
  cursor?: string;
}

/** A browse request as the read side runs it: its sort as an order, its skill made a category or keyword words. */
interface BrowseRequest extends Omit<BrowseListingsQuery, "sort" | "skill" | "category" | "categories"> {
  sort: ListingSort;
}

const INT32_MAX = 2_147_483_647;

/**
 * A keyword as a prefix tsquery: every word (letters, their accents, digits) as `word:*`, joined by
 * `&`. Everything else only separates words, so no tsquery operator ever gets through.
 */
function prefixTsQuery(keyword: string): string | undefined {
  const words = (keyword.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).slice(0, KEYWORD_MAX_WORDS);
  return words.length === 0 ? undefined : words.map((word) => `${word}:*`).join(" & ");
}

/**
 * A keyword of one word of ASCII letters and digits, lowercased: Postgres' 'simple' parser makes it
 * one lexeme, itself, so the lexemes it is a prefix of are a range of app.listing_words. Other
 * keywords (several words, other letters) go to the GIN index.
 */
function plainWordOf(keyword: string): string | undefined {
  const words = keyword.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  return words.length === 1 && /^[a-z0-9]+$/.test(words[0] as string) ? words[0] : undefined;
}

/** The first string after every string that starts with `word` (of [a-z0-9]), compared byte by byte. */
function nextAfterPrefix(word: string): string {
  return word.slice(0, -1) + String.fromCharCode(word.charCodeAt(word.length - 1) + 1);
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
    case "expensive":
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

/**
 * Which filters a request has, where it reads from, its sort and how many rows it reads: all a
 * statement's SQL depends on.
 */
interface Shape {
  sort: ListingSort;
  /** Rows read: a page's limit and one more (to know whether a next page exists), rounded up to a bucket. */
  fetch: number;
  filters: Array<keyof typeof FILTERS>;
  /** The keyword is one plain word: the page walks its rows in app.listing_words (wordPage). */
  word: boolean;
  /** include_completed: listings no longer active too (not the partial indexes' rows alone). */
  completed: boolean;
}

const p = (name: string) => sql.placeholder(name);

/** The columns browse filters and sorts by: the listings table's, or the same in app.listing_words. */
interface BrowseColumns {
  id: SQLWrapper;
  agentId: SQLWrapper;
  category: SQLWrapper;
  listingType: SQLWrapper;
  priceWei: SQLWrapper;
  timesPurchased: SQLWrapper;
  createdAt: SQLWrapper;
}

const wordColumns: BrowseColumns = { ...listingWords, id: listingWords.listingId };

/**
 * Each filter's condition over `row`'s columns, with named parameters. `keyword` searches the
 * listings' tsvector (GIN); a keyword of one plain word is no condition but the shape's `word`.
 */
const FILTERS = {
  category: (_sort: ListingSort, row: BrowseColumns) => sql`${row.category} = ${p("category")}`,
  categories: (_sort: ListingSort, row: BrowseColumns) => sql`${row.category} = ANY(${p("categories")}::text[])`,
  listingType: (_sort: ListingSort, row: BrowseColumns) => sql`${row.listingType} = ${p("listingType")}`,
  minPrice: (_sort: ListingSort, row: BrowseColumns) => sql`${row.priceWei} >= ${p("minPrice")}`,
  maxPrice: (_sort: ListingSort, row: BrowseColumns) => sql`${row.priceWei} <= ${p("maxPrice")}`,
  excludeAgent: (_sort: ListingSort, row: BrowseColumns) => sql`${row.agentId} <> ${p("excludeAgent")}`,
  owner: (_sort: ListingSort, row: BrowseColumns) => sql`${row.agentId} IN (${agentIdsOwnedBy(p("owner"))})`,
  keyword: () => sql`${listings.search} @@ to_tsquery('simple', ${p("tsquery")})`,
  cursor: (sort: ListingSort, row: BrowseColumns) => {
    switch (sort) {
      case "newest":
        return sql`(${row.createdAt}, ${row.id}) < (${p("cursorKey")}::timestamptz, ${p("cursorId")}::uuid)`;
      case "cheapest":
        return sql`(${row.priceWei}, ${row.id}) > (${p("cursorKey")}::numeric, ${p("cursorId")}::uuid)`;
      case "popular":
        return sql`(${row.timesPurchased}, ${row.id}) < (${p("cursorKey")}::integer, ${p("cursorId")}::uuid)`;
      case "expensive":
        return sql`(${row.priceWei}, ${row.id}) < (${p("cursorKey")}::numeric, ${p("cursorId")}::uuid)`;
    }
  },
} satisfies Record<string, (sort: ListingSort, row: BrowseColumns) => SQL>;

/** One letter per filter, for statement names. */
const FILTER_CODES: Record<keyof typeof FILTERS, string> = {
  category: "c",
  categories: "C",
  listingType: "t",
  minPrice: "l",
  maxPrice: "h",
  excludeAgent: "x",
  owner: "o",
  keyword: "k",
  cursor: "a",
};

/**
 * The rows a page of `limit` reads, written into its statement: with the LIMIT a parameter, Postgres
 * can only plan for an unknown share of the rows, so it re-plans every execution (a custom plan,
 * ~1 ms here) rather than keep one plan. Rounded up to four buckets (the extra rows are cut), so a
 * shape has at most four statements.
 */
const FETCH_BUCKETS = [11, 26, 51, 101] as const;

function fetchOf(limit: number): number {
  return FETCH_BUCKETS.find((bucket) => bucket > limit) ?? limit + 1;
}

/** A browse query checked, with its starter and price ceilings made one, and its keyword as a tsquery. */
interface BrowseFilters {
  category?: string;
  /** Two or more categories, any of them (one is `category`). */
  categories?: string[];
  listingType?: string;
  minPrice?: string;
  maxPrice?: string;
  excludeAgent?: string;
  /** An owner's address, lowercase. */
  owner?: string;
  /** The keyword as a prefix tsquery (prefixTsQuery). */
  tsquery?: string;
  cursor?: { id: string; key: string | number };
}

/**
 * The categories a request allows (category, categories, a skill naming one): undefined for any,
 * else those in all of them (none: nothing matches).
 */
function categoriesOf(query: BrowseListingsQuery): ListingCategory[] | undefined {
  const skill = query.skill?.toLowerCase();
  const sets = [
    query.category === undefined ? undefined : [query.category],
    query.categories,
    skill !== undefined && isCategory(skill) ? [skill] : undefined,
  ].filter((set): set is ListingCategory[] => set !== undefined);
  if (sets.length === 0) return undefined;
  return LISTING_CATEGORIES.filter((category) => sets.every((set) => set.includes(category)));
}

function isCategory(word: string): word is ListingCategory {
  return (LISTING_CATEGORIES as readonly string[]).includes(word);
}

/**
 * The request as the read side runs it, and its categories (undefined: any): `highest` is
 * `expensive`, and a skill that is no category joins the keyword's words.
 */
function requestOf(query: BrowseListingsQuery): { request: BrowseRequest; categories?: ListingCategory[] } {
  const { skill, category: _category, categories: _categories, ...rest } = query;
  const skillWord = skill !== undefined && !isCategory(skill.toLowerCase()) ? skill : undefined;
  const keyword = [query.keyword, skillWord].filter((word) => word !== undefined).join(" ") || undefined;
  return { request: { ...rest, keyword, sort: listingOrderOf(query.sort) }, categories: categoriesOf(query) };
}

/**
 * The request's filters (400 for contradictory bounds, a foreign cursor); undefined when nothing can
 * match (a keyword without words, categories that exclude each other).
 */
function filtersOf(query: BrowseRequest, categories: ListingCategory[] | undefined): BrowseFilters | undefined {
  if (query.min_price && query.max_price && BigInt(query.min_price) > BigInt(query.max_price)) {
    throw badRequest("min_price must not be greater than max_price");
  }
  // starter is a price ceiling: the lower of the two when both are given.
  const ceilings = [query.max_price, query.starter ? STARTER_MAX_WEI.toString() : undefined].filter(
    (value): value is string => value !== undefined,
  );
  if (categories?.length === 0) return undefined;
  const filters: BrowseFilters = {
    category: categories?.length === 1 ? categories[0] : undefined,
    categories: categories && categories.length > 1 ? categories : undefined,
    listingType: query.listing_type,
    minPrice: query.min_price || undefined,
    maxPrice: ceilings.length > 0 ? ceilings.reduce((a, b) => (BigInt(a) < BigInt(b) ? a : b)) : undefined,
    excludeAgent: query.exclude_agent || undefined,
    owner: query.owner?.toLowerCase(),
  };
  if (query.keyword !== undefined) {
    filters.tsquery = prefixTsQuery(query.keyword);
    // A keyword without letters or digits matches nothing.
    if (!filters.tsquery) return undefined;
  }
  if (query.cursor) filters.cursor = cursorPosition(query.sort, query.cursor);
  return filters;
}

/** The statement's shape and the values of its parameters. */
function shapeOf(query: BrowseRequest, given: BrowseFilters): { shape: Shape; params: BrowseParams } {
  const filters: Shape["filters"] = [];
  const params: BrowseParams = {};
  let word = false;
  const add = (filter: keyof typeof FILTERS, values: BrowseParams) => {
    filters.push(filter);
    Object.assign(params, values);
  };
  if (given.category) add("category", { category: given.category });
  if (given.categories) add("categories", { categories: given.categories });
  if (given.listingType) add("listingType", { listingType: given.listingType });
  if (given.minPrice) add("minPrice", { minPrice: given.minPrice });
  if (given.maxPrice) add("maxPrice", { maxPrice: given.maxPrice });
  if (given.excludeAgent) add("excludeAgent", { excludeAgent: given.excludeAgent });
  if (given.owner) add("owner", { owner: given.owner });
  const completed = query.include_completed === true;
  if (given.tsquery && query.keyword !== undefined) {
    // app.listing_words holds the listings browse shows by default, not those no longer active.
    const plainWord = completed ? undefined : plainWordOf(query.keyword);
    if (plainWord) {
      word = true;
      Object.assign(params, { word: plainWord, wordEnd: nextAfterPrefix(plainWord) });
    } else add("keyword", { tsquery: given.tsquery });
  }
  if (given.cursor) add("cursor", { cursorId: given.cursor.id, cursorKey: given.cursor.key });
  return { shape: { sort: query.sort, filters, fetch: fetchOf(query.limit), word, completed }, params };
}

/** The index's query of the filters, with the keyword's prefixes as Postgres parsed them. */
function indexQueryOf(query: BrowseRequest, filters: BrowseFilters, prefixes: string[] | undefined): IndexQuery {
  const { cursor } = filters;
  const id = cursor?.id.toLowerCase() ?? "";
  const after: SortPoint | undefined = cursor && {
    id,
    createdAt: query.sort === "newest" ? microsecondsOf(cursor.key as string) : 0,
    price: query.sort === "cheapest" || query.sort === "expensive" ? priceOf(String(cursor.key)) : 0,
    timesPurchased: query.sort === "popular" ? (cursor.key as number) : 0,
  };
  return {
    sort: query.sort,
    rows: query.limit + 1,
    category: filters.category,
    categories: filters.categories,
    listingType: filters.listingType,
    minPrice: filters.minPrice === undefined ? undefined : priceOf(filters.minPrice),
    maxPrice: filters.maxPrice === undefined ? undefined : priceOf(filters.maxPrice),
    excludeAgent: filters.excludeAgent?.toLowerCase(),
    prefixes,
    after,
  };
}

/** The next page's cursor, after a page's last row (by its sort's key, named as that sort's cursors name it). */
function cursorAfter(
  sort: ListingSort,
  last: { id: string; createdAt: string | null; priceWei: string | null; timesPurchased: number | null },
): string | null {
  const [name, key] =
    sort === "newest"
      ? ["at", last.createdAt]
      : sort === "cheapest" || sort === "expensive"
        ? ["price", last.priceWei]
        : ["purchased", last.timesPurchased === null ? null : String(last.timesPurchased)];
  return key === null ? null : encodeCursor({ sort, [name]: key, id: last.id });
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
  acceptsProposals: listings.acceptsProposals,
  isActive: listings.isActive,
  timesPurchased: listings.timesPurchased,
  ratingSum: listings.ratingSum,
  ratingCount: listings.ratingCount,
  bountyDeliveryHours: listings.bountyDeliveryHours,
  createdAt: listings.createdAt,
};

/**
 * A listing's own part of every answer about it (a browse card, its details) as JSON text built by
 * Postgres, open (without its closing brace): stored per listing in app.listings.card_text by a
 * trigger (listing-cards.ts), and sent with the rest appended (sellerCardSql, the details) as it
 * comes, instead of decoding the listing's columns and encoding them again. listing-cards.test.ts
 * holds it to the same card written in TypeScript.
 */
export function listingCardSql(row: { [K in keyof typeof listingFields]: SQLWrapper }): SQL<string> {
  return openJsonObject({
    id: jsonString(row.id),
    title: jsonString(row.title),
    description: jsonString(row.description),
    category: jsonString(row.category),
    listing_type: jsonString(row.listingType),
    price_wei: jsonString(row.priceWei),
    price_usdc: jsonString(formatUsdcSql(row.priceWei)),
    currency: jsonConstant("USDC"),
    is_negotiable: jsonLiteral(row.isNegotiable),
    accepts_proposals: jsonLiteral(row.acceptsProposals),
    times_purchased: jsonLiteral(row.timesPurchased),
    avg_rating: jsonString(formatRatingSql(row.ratingSum, row.ratingCount)),
    created_at: jsonString(isoMillisSql(row.createdAt)),
    rating_count: jsonLiteral(row.ratingCount),
    delivery_hours: jsonLiteral(sql`coalesce(${row.bountyDeliveryHours}, ${sql.raw(String(DEFAULT_DELIVERY_HOURS))})`),
  });
}

/**
 * A stored card (listingCardSql) closed with its seller as its last field, `agent`. The card is
 * stored open so that nothing is cut from it here: cutting its last character (`left(card, -1)`)
 * counts the characters of the whole text, ~2.4 µs a card, a tenth of a page's time in Postgres.
 */
function sellerCardSql(card: SQLWrapper, activeField: SQLWrapper, seller: SellerColumns): SQL<string> {
  return sql<string>`${card} || ${activeField} || ${sellerSuffixSql(seller)}`;
}

/**
 * A browse card's `is_active`, between the stored card and its seller: always true but on the pages
 * of include_completed, which also show listings no longer active.
 */
export const ACTIVE_CARD_FIELD = ',"is_active":true';

function activeFieldSql(isActive: SQLWrapper, completed: boolean): SQL<string> {
  return completed
    ? sql<string>`CASE WHEN ${isActive} THEN ',"is_active":true' ELSE ',"is_active":false' END`
    : sql<string>`${ACTIVE_CARD_FIELD}`;
}

/**
 * A card's last field, its seller, and its closing brace (the listing index keeps one per seller):
 * its name, tier, and success rate as the listing's details give it (integer percent, with the
 * rated deals it is over: 0, no rate yet).
 */
export function sellerSuffixSql(seller: SellerColumns): SQL<string> {
  const agent = jsonObject({
    id: jsonString(seller.id),
    name: jsonString(seller.name),
    reputation_tier: jsonString(seller.tier),
    success_rate: jsonLiteral(seller.successPercent),
    rated_deals: jsonLiteral(seller.ratedDeals),
  });
  return sql<string>`',"agent":' || ${agent} || '}'`;
}

/** What a page reads of its listings: the stored card, and the keys it is sorted and cut by. */
const pageFields = {
  id: listings.id,
  agentId: listings.agentId,
  cardText: listings.cardText,
  isActive: listings.isActive,
  priceWei: listings.priceWei,
  timesPurchased: listings.timesPurchased,
  createdAt: listings.createdAt,
};

/** The columns a page is sorted by (the listings table's, or the same in a subquery). */
type SortColumns = Record<"createdAt" | "id" | "priceWei" | "timesPurchased", SQLWrapper>;

/** Each sort's order, over any set of sort columns. */
const SORT_KEYS = {
  newest: (row: SortColumns) => [desc(row.createdAt), desc(row.id)],
  cheapest: (row: SortColumns) => [asc(row.priceWei), asc(row.id)],
  popular: (row: SortColumns) => [desc(row.timesPurchased), desc(row.id)],
  expensive: (row: SortColumns) => [desc(row.priceWei), desc(row.id)],
} satisfies Record<ListingSort, (row: SortColumns) => SQL[]>;
type SortKeys = (row: SortColumns) => SQL[];

/** The listings browse can show. */
const listedSql = sql`${listings.isActive} AND ${listings.sellerListed}`;

/** With include_completed: those no longer active too, of listed sellers (never a bounty still awaiting its funding). */
const listedOrCompletedSql = sql`${listings.sellerListed} AND NOT ${listings.awaitingFunding}`;

/**
 * Whether a shape's best plan depends on its values, so that Postgres must plan each execution
 * (a custom plan) rather than keep one: a keyword's matches in the GIN index (a rare word or a
 * common one), or a price range over listings sorted by something else than price (a narrow range
 * is best read by price and sorted, a wide one in the sort's order). Measured on the benchmark's
 * data, a kept plan of these takes 10-40 ms where a custom one takes 3; every other shape's kept
 * plan is as good as a custom one, without ~1 ms of planning on every request.
 */
function planDependsOnValues(shape: Shape): boolean {
  const has = (filter: Shape["filters"][number]) => shape.filters.includes(filter);
  if (has("keyword")) return true;
  if (shape.word) return false;
  return (has("minPrice") || has("maxPrice")) && shape.sort !== "cheapest" && shape.sort !== "expensive";
}

/** The browse statements of one database, built and prepared the first time a shape is asked for. */
export function listingBrowse(pools: { db: Database; genericPlansDb: Database; index?: ListingIndexSync }) {
  const statements = new Map<string, ReturnType<typeof prepare>>();

  /** The page's listings, cut before their sellers are joined (joining first would join every match). */
  function tablePage(db: Database, shape: Shape, sortKeys: SortKeys) {
    return db
      .select(pageFields)
      .from(listings)
      .where(
        and(
          shape.completed ? listedOrCompletedSql : listedSql,
          ...shape.filters.map((filter) => FILTERS[filter](shape.sort, listings)),
        ),
      )
      .orderBy(...sortKeys(listings))
      .limit(literalLimit(shape.fetch));
  }

  /**
   * The page's listings for a keyword of one plain word, from app.listing_words: the lexemes it
   * starts (found by walking the index, one probe each), each lexeme's first `limit` rows in the
   * sort's order that pass the filters, and of those (a listing under two of the lexemes once) the
   * first `limit`. Each listing of the true page is among the first `limit` of each of its
   * lexemes, so none is missed; each lexeme's rows are read in order, so none is read past the page.
   */
  function wordPage(db: Database, shape: Shape, sortKeys: SortKeys) {
    const w = listingWords;
    const { filters } = shape;
    // Only the sort's key is read, so each lexeme's scan reads its index alone.
    const sortKey = { newest: w.createdAt, cheapest: w.priceWei, popular: w.timesPurchased, expensive: w.priceWei }[
      shape.sort
    ];
    const key = sql`hit.sort_key`;
    const hit: SortColumns = { createdAt: key, priceWei: key, timesPurchased: key, id: sql`hit.listing_id` };
    const ids = sql`WITH RECURSIVE lexemes(word) AS (
        SELECT min(${w.word}) FROM ${w} WHERE ${w.word} >= ${p("word")} AND ${w.word} < ${p("wordEnd")}
        UNION ALL
        SELECT (SELECT min(${w.word}) FROM ${w} WHERE ${w.word} > lexemes.word AND ${w.word} < ${p("wordEnd")})
        FROM lexemes WHERE lexemes.word IS NOT NULL
      )
      SELECT hit.listing_id FROM lexemes CROSS JOIN LATERAL (
        SELECT ${w.listingId}, ${sortKey} AS sort_key FROM ${w}
        WHERE ${and(sql`${w.word} = lexemes.word`, ...filters.map((filter) => FILTERS[filter](shape.sort, wordColumns)))}
        ORDER BY ${sql.join(sortKeys(wordColumns), sql`, `)} LIMIT ${sql.raw(String(shape.fetch))}
      ) AS hit
      GROUP BY hit.listing_id, hit.sort_key
      ORDER BY ${sql.join(sortKeys(hit), sql`, `)} LIMIT ${sql.raw(String(shape.fetch))}`;
    return db
      .select(pageFields)
      .from(listings)
      .where(and(listedSql, sql`${listings.id} IN (${ids})`));
  }

  function prepare(shape: Shape, name: string) {
    const db = planDependsOnValues(shape) ? pools.db : pools.genericPlansDb;
    const sortKeys = SORT_KEYS[shape.sort];
    const page = shape.word ? wordPage(db, shape, sortKeys) : tablePage(db, shape, sortKeys);
    const matched = page.as("matched");
    const order = sortKeys(matched);
    // Each row of the page in its order (with one more past it, when there is a next page).
    const ranked = db
      .select({
        card: sellerCardSql(matched.cardText, activeFieldSql(matched.isActive, shape.completed), {
          ...sellerColumnsOfAgents,
          id: matched.agentId,
        }).as("card"),
        n: sql<number>`row_number() OVER (ORDER BY ${sql.join(order, sql`, `)})`.as("n"),
        id: matched.id,
        createdAt: matched.createdAt,
        priceWei: matched.priceWei,
        timesPurchased: matched.timesPurchased,
      })
      .from(matched)
      .innerJoin(agents, eq(agents.id, matched.agentId))
      .as("ranked");
    // The page as one text (its cards joined in order), how many rows were read, and the keys of
    // the page's last row for the next cursor: one row to send, not a row per listing.
    const pageLimit = sql`${p("pageLimit")}::integer`;
    const last = <T>(column: SQLWrapper) =>
      sql<T | null>`(array_agg(${column}) FILTER (WHERE ${ranked.n} = ${pageLimit}))[1]`;
    const statement = db
      .select({
        cards: sql<
          string | null
        >`string_agg(${ranked.card}, ',' ORDER BY ${ranked.n}) FILTER (WHERE ${ranked.n} <= ${pageLimit})`,
        rows: sql<number>`count(*)::integer`,
        lastId: last<string>(ranked.id),
        /** created_at to the microsecond, for cursors. */
        lastCreatedAt: timestampPosition(last(ranked.createdAt)),
        lastPriceWei: last<string>(ranked.priceWei),
        lastPurchased: last<number>(ranked.timesPurchased),
      })
      .from(ranked)
      .prepare(name);
    return compiled(statement);
  }

  function statementOf(shape: Shape) {
    // Postgres keeps 63 characters of a statement's name: each filter by its code, a word as "w".
    const codes =
      shape.filters.map((filter) => FILTER_CODES[filter]).join("") +
      (shape.word ? "w" : "") +
      (shape.completed ? "i" : "");
    const name = `browse_${shape.sort}_${shape.fetch}_${codes || "all"}`;
    let statement = statements.get(name);
    if (!statement) {
      statement = prepare(shape, name);
      statements.set(name, statement);
    }
    return statement;
  }

  /** A page read by its statement: the page's listings as the one text Postgres built of them. */
  async function pageBySql(query: BrowseRequest, filters: BrowseFilters): Promise<ListingPageJson> {
    const { shape, params } = shapeOf(query, filters);
    const [page] = await statementOf(shape).execute({ ...params, pageLimit: query.limit });
    if (!page) throw new Error("browse: the page statement answered no row");
    // More rows than the page: there is a next page, after its last row.
    const nextCursor =
      page.rows > query.limit && page.lastId !== null
        ? cursorAfter(query.sort, {
            id: page.lastId,
            createdAt: page.lastCreatedAt,
            priceWei: page.lastPriceWei,
            timesPurchased: page.lastPurchased,
          })
        : null;
    return { cards: page.cards ?? "", next_cursor: nextCursor };
  }

  /** A page from the listing index, current as of this call (one round trip, which also parses the keyword). */
  async function pageByIndex(
    index: ListingIndexSync,
    query: BrowseRequest,
    filters: BrowseFilters,
  ): Promise<ListingPageJson> {
    const { terms } = await index.check(filters.tsquery);
    let prefixes: string[] | undefined;
    if (filters.tsquery) {
      prefixes = terms === null ? undefined : prefixesOfTsQuery(terms);
      // A keyword Postgres parses into something else than prefixes of lexemes (a phrase): by SQL.
      if (!prefixes) return pageBySql(query, filters);
    }
    const rows = index.index.search(indexQueryOf(query, filters, prefixes));
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    let cards = "";
    for (const listing of page)
      cards += `${cards === "" ? "" : ","}${listing.card}${ACTIVE_CARD_FIELD}${index.sellerSuffix(listing.agentId)}`;
    return {
      cards,
      next_cursor:
        rows.length > query.limit && last
          ? cursorAfter(query.sort, {
              id: last.id,
              createdAt: timestampOfMicroseconds(last.createdAt),
              priceWei: last.price.toString(),
              timesPurchased: last.timesPurchased,
            })
          : null,
    };
  }

  /**
   * One page of active listings of active, unpaused agents, in `sort` order, after `cursor`: from
   * the listing index when this process keeps one, else by its statement. The index holds the
   * listings browse shows by default: an owner's, or those no longer active, are read by SQL.
   */
  return async function browse(query: BrowseListingsQuery): Promise<ListingPageJson> {
    const { request, categories } = requestOf(query);
    const filters = filtersOf(request, categories);
    if (!filters) return { cards: "", next_cursor: null };
    const byIndex = pools.index && filters.owner === undefined && request.include_completed !== true;
    return byIndex && pools.index ? pageByIndex(pools.index, request, filters) : pageBySql(request, filters);
  };
}
