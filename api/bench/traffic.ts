/**
 * Requests that look like traffic: each browse draws its own filters (a keyword from the
 * vocabulary, a category, a type, a sort, price bounds, starter; on a market its users made, their
 * words and page sizes: userBrowseQuery), and 30 % of them follow the
 * next_cursor of the worker's previous page, as a person paging on does; the reads of one agent's
 * own data use many agents' keys, and details and profiles random listings and agents.
 */
import { listingKeyword } from "./listing-text.ts";
import { CATEGORIES, VOCABULARY } from "./seed.ts";

/** A small, seeded generator (mulberry32): the same run draws the same requests. */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SORTS = ["newest", "cheapest", "popular"] as const;
const USER_SORTS = ["newest", "cheapest", "popular", "expensive"] as const;

export function pickFrom<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** One browse query: each filter drawn on its own, so that few requests share their SQL. */
export function browseQuery(random: () => number): URLSearchParams {
  const query = new URLSearchParams();
  if (random() < 0.6) query.set("keyword", pickFrom(VOCABULARY, random));
  if (random() < 0.5) query.set("category", pickFrom(CATEGORIES, random));
  if (random() < 0.4) query.set("listing_type", random() < 0.8 ? "FIXED" : "BOUNTY");
  query.set("sort", pickFrom(SORTS, random));
  if (random() < 0.25) {
    const min = Math.floor(random() * 20) * 1_000_000;
    query.set("min_price", String(min));
    if (random() < 0.5) query.set("max_price", String(min + (1 + Math.floor(random() * 30)) * 1_000_000));
  } else if (random() < 0.1) {
    query.set("starter", "true");
  }
  return query;
}

/**
 * One browse of a market its users made (user-market.ts): a keyword (60 %) of its 600 words, one
 * word or (15 %) two; a category (50 %); a type (40 %); any of the four sorts; price bounds in whole
 * USDC (50 %: a floor, a ceiling or both); a page of 10 to 100.
 */
export function userBrowseQuery(random: () => number): URLSearchParams {
  const query = new URLSearchParams();
  if (random() < 0.6) query.set("keyword", listingKeyword(random));
  if (random() < 0.5) query.set("category", pickFrom(CATEGORIES, random));
  if (random() < 0.4) query.set("listing_type", random() < 0.8 ? "FIXED" : "BOUNTY");
  query.set("sort", pickFrom(USER_SORTS, random));
  if (random() < 0.5) {
    const min = Math.floor(random() * 20) * 1_000_000;
    const bounds = random();
    if (bounds < 0.7) query.set("min_price", String(min));
    if (bounds >= 0.3) query.set("max_price", String(min + (1 + Math.floor(random() * 30)) * 1_000_000));
  }
  query.set("limit", String(10 + Math.floor(random() * 91)));
  return query;
}

const NEXT_CURSOR = '"next_cursor":';

/**
 * The next_cursor of a browse answer. The API writes it last, after the page's listings, so it is
 * read from the tail: parsing the whole page (~25 KB) would cost the load generator, which shares
 * the CPUs with what it measures, more than some of the reads it sends. Any other body is parsed.
 */
export function nextCursorOf(body: string): string | null {
  const at = body.lastIndexOf(NEXT_CURSOR);
  if (at >= 0 && body.endsWith("}")) {
    const tail: unknown = JSON.parse(body.slice(at + NEXT_CURSOR.length, -1));
    if (tail === null || typeof tail === "string") return tail;
  }
  return (JSON.parse(body) as { next_cursor?: string | null }).next_cursor ?? null;
}

/**
 * A browsing person per worker: a new query, or (30 %) the next page of the last one when it had
 * one. Each path comes with its `remember`, which takes its answer's next_cursor: a worker with
 * two requests under way (the steady-rate sender) keeps a cursor only for the query it belongs to.
 */
export function browser(random: () => number, draw: (random: () => number) => URLSearchParams = browseQuery) {
  let last: { query: URLSearchParams; cursor: string | null } | undefined;
  return {
    next(): { path: string; remember: (cursor: string | null | undefined) => void } {
      const current = last?.cursor && random() < 0.3 ? last : { query: draw(random), cursor: null };
      last = current;
      const query = new URLSearchParams(current.query);
      if (current.cursor) query.set("cursor", current.cursor);
      return {
        path: `/api/listings?${query}`,
        remember: (cursor) => {
          if (last === current) current.cursor = cursor ?? null;
        },
      };
    },
  };
}
