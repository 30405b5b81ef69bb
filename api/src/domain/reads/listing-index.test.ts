import { describe, expect, it } from "vitest";
import { randomSource } from "../../../bench/traffic.ts";
import { LISTING_ORDERS, type ListingSort } from "../shared/listing-terms.ts";
import {
  type IndexedListing,
  type IndexQuery,
  type ListingEntry,
  ListingIndex,
  type ListingIndexOptions,
  microsecondsOf,
  priceOf,
  type SortPoint,
  timestampOfMicroseconds,
  wordsHash,
} from "./listing-index.ts";

/*
 * The listing index against the plainest reading of a page: every listing that passes the filters,
 * sorted, after the cursor, the first rows. Listings share prices, purchase counts and creation
 * times (ids break the ties), words start one another, and a run of updates replaces, unlists,
 * relists and re-words listings until the index drops its dead slots, checking pages all along.
 */

const CATEGORIES = ["research", "writing", "coding"];
const WORDS = ["ka", "kalo", "kalomi", "lo", "lomi", "mi", "su", "sute", "te", "x1", "100", "é"];

function hexId(random: () => number): string {
  const hex = () => Math.floor(random() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
}

function randomEntry(random: () => number, id = hexId(random)): ListingEntry {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const words = [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(WORDS)))].sort();
  const listing: IndexedListing = {
    id,
    agentId: `agent-${Math.floor(random() * 20)}`,
    category: pick(CATEGORIES),
    listingType: random() < 0.2 ? "BOUNTY" : "FIXED",
    // Prices beyond a safe number now and then: the index keeps those as bigints.
    price: priceOf(
      random() < 0.1
        ? 2n ** 60n * BigInt(1 + Math.floor(random() * 3))
        : BigInt(1 + Math.floor(random() * 30)) * 100_000n,
    ),
    timesPurchased: Math.floor(random() * 5),
    createdAt: 1_795_000_000_000_000 + Math.floor(random() * 3) * 86_400_000_000 + Math.floor(random() * 3),
    card: `{"id":"${id}"`,
    wordsHash: wordsHash(words),
    slot: -1,
  };
  return { listing, words };
}

/** The page by brute force. */
function reference(entries: Map<string, ListingEntry>, query: IndexQuery): string[] {
  const precedes = (a: SortPoint, b: SortPoint) => {
    switch (query.sort) {
      case "newest":
        return a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
      case "cheapest":
        return a.price < b.price || (a.price === b.price && a.id < b.id);
      case "popular":
        return a.timesPurchased > b.timesPurchased || (a.timesPurchased === b.timesPurchased && a.id > b.id);
      case "expensive":
        return a.price > b.price || (a.price === b.price && a.id > b.id);
    }
  };
  return [...entries.values()]
    .filter(({ listing, words }) => {
      if (query.category !== undefined && listing.category !== query.category) return false;
      if (query.categories !== undefined && !query.categories.includes(listing.category)) return false;
      if (query.listingType !== undefined && listing.listingType !== query.listingType) return false;
      if (query.minPrice !== undefined && listing.price < query.minPrice) return false;
      if (query.maxPrice !== undefined && listing.price > query.maxPrice) return false;
      if (query.excludeAgent !== undefined && listing.agentId === query.excludeAgent) return false;
      if (query.after && !precedes(query.after, listing)) return false;
      return (query.prefixes ?? []).every((prefix) => words.some((word) => word.startsWith(prefix)));
    })
    .map(({ listing }) => listing)
    .sort((a, b) => (precedes(a, b) ? -1 : 1))
    .slice(0, query.rows)
    .map((listing) => listing.id);
}

function randomQuery(random: () => number, entries: Map<string, ListingEntry>): IndexQuery {
  const query: IndexQuery = {
    sort: LISTING_ORDERS[Math.floor(random() * LISTING_ORDERS.length)] as ListingSort,
    rows: 1 + Math.floor(random() * 60),
  };
  if (random() < 0.5) query.category = CATEGORIES[Math.floor(random() * CATEGORIES.length)];
  // Any of two categories (one of them perhaps no listing's).
  else if (random() < 0.3)
    query.categories = [CATEGORIES[Math.floor(random() * CATEGORIES.length)] as string, "design"];
  if (random() < 0.3) query.listingType = random() < 0.5 ? "FIXED" : "BOUNTY";
  if (random() < 0.3) query.minPrice = priceOf(BigInt(Math.floor(random() * 20)) * 100_000n);
  if (random() < 0.3)
    query.maxPrice = priceOf(random() < 0.2 ? 2n ** 61n : BigInt(Math.floor(random() * 30)) * 100_000n);
  if (random() < 0.2) query.excludeAgent = `agent-${Math.floor(random() * 20)}`;
  if (random() < 0.6) {
    const prefixes = ["k", "ka", "kalo", "lo", "m", "s", "sute", "x", "1", "é", "zz", "kalomi"];
    query.prefixes = Array.from(
      { length: 1 + Math.floor(random() * 2) },
      () => prefixes[Math.floor(random() * prefixes.length)] as string,
    );
  }
  if (random() < 0.4) {
    // A cursor at some listing's keys, or between them.
    const all = [...entries.values()];
    const at = all[Math.floor(random() * all.length)]?.listing;
    if (at) query.after = random() < 0.5 ? at : { ...at, id: hexId(random) };
  }
  return query;
}

function expectSamePages(index: ListingIndex, entries: Map<string, ListingEntry>, random: () => number, count: number) {
  for (let k = 0; k < count; k++) {
    const query = randomQuery(random, entries);
    const found = index.search(query).map((listing) => listing.id);
    expect(
      found,
      JSON.stringify(query, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
    ).toEqual(reference(entries, query));
  }
}

describe("the listing index", () => {
  // As it chooses between walking a sorted list and gathering candidates, and each way alone.
  it.each([
    ["walking or gathering, as it chooses", {}],
    ["gathering, words as lists", { walkPerCandidate: 0, bitmapAbove: Number.POSITIVE_INFINITY }],
    ["gathering, words as bitmaps", { walkPerCandidate: 0, bitmapAbove: 0 }],
    ["walking, words as lists", { walkPerCandidate: Number.POSITIVE_INFINITY, bitmapAbove: Number.POSITIVE_INFINITY }],
    ["walking, words as bitmaps", { walkPerCandidate: Number.POSITIVE_INFINITY, bitmapAbove: 0 }],
    ["words of more than 600 listings as bitmaps", { bitmapAbove: 600 }],
  ] satisfies [string, ListingIndexOptions][])(
    "answers every filter, sort and cursor as a brute-force page does, loaded and then updated (%s)",
    (_, options) => {
      const random = randomSource(23);
      const entries = new Map<string, ListingEntry>();
      for (let k = 0; k < 3_000; k++) {
        const entry = randomEntry(random);
        entries.set(entry.listing.id, entry);
      }
      const index = new ListingIndex(options);
      index.load(entries.values());
      expect(index.size).toBe(3_000);
      expectSamePages(index, entries, random, 400);

      const ids = [...entries.keys()];
      // Rounds of updates, one by one and in bulk: new keys, new words, unlisted, listed again, new.
      for (let round = 0; round < 12; round++) {
        const changes = new Map<string, ListingEntry | undefined>();
        const size = round % 4 === 3 ? 2_500 : 150;
        for (let k = 0; k < size; k++) {
          const id = random() < 0.1 ? hexId(random) : (ids[Math.floor(random() * ids.length)] as string);
          const roll = random();
          if (roll < 0.2) changes.set(id, undefined);
          else if (roll < 0.5 && entries.has(id)) {
            // New keys, the same words: the listing keeps its slot.
            const { words } = entries.get(id) as ListingEntry;
            const entry = randomEntry(random, id);
            changes.set(id, { listing: { ...entry.listing, wordsHash: wordsHash(words) }, words });
          } else changes.set(id, randomEntry(random, id));
        }
        index.update(changes);
        for (const [id, entry] of changes) {
          if (entry) entries.set(id, entry);
          else entries.delete(id);
          if (!ids.includes(id)) ids.push(id);
        }
        expect(index.size).toBe(entries.size);
        expectSamePages(index, entries, random, 150);
      }
    },
  );

  it("writes created_at back as the cursor text it was read from", () => {
    for (const at of [
      "2026-11-26T16:59:00.123456Z",
      "1970-01-01T00:00:00.000001Z",
      "2026-02-28T23:59:59.999999Z",
      "2000-01-01T00:00:00.000000Z",
    ]) {
      expect(timestampOfMicroseconds(microsecondsOf(at))).toBe(at);
    }
    expect(priceOf("9007199254740991")).toBe(9007199254740991);
    expect(priceOf("9007199254740992")).toBe(9007199254740992n);
  });

  it("keeps a listing's words when only its keys change, and drops them when its words do", () => {
    const index = new ListingIndex();
    const first = randomEntry(randomSource(1), "00000000-0000-4000-8000-000000000001");
    const entry: ListingEntry = { listing: { ...first.listing, wordsHash: wordsHash(["alpha"]) }, words: ["alpha"] };
    index.load([entry]);
    const search = (prefix: string) =>
      index.search({ sort: "newest", rows: 10, prefixes: [prefix] }).map((listing) => listing.price);
    index.update(new Map([[entry.listing.id, { listing: { ...entry.listing, price: 7n }, words: ["alpha"] }]]));
    expect(search("alp")).toEqual([7n]);
    index.update(
      new Map([
        [
          entry.listing.id,
          { listing: { ...entry.listing, price: 8n, wordsHash: wordsHash(["beta"]) }, words: ["beta"] },
        ],
      ]),
    );
    expect(search("alp")).toEqual([]);
    expect(search("be")).toEqual([8n]);
  });
});
