import type { ListingSort } from "../shared/listing-terms.ts";

/*
 * The listings browse can show, in memory: each one's filters, sort keys, stored card and words,
 * sorted four ways, and each word's listings. A page is the
 * first rows of one of the sorted lists that pass the filters, or, when few listings can match (a
 * keyword's, a narrow price range's), the best rows among those few. Nothing here talks to
 * Postgres: listing-index-sync.ts loads it and keeps it current, listing-browse.ts asks it.
 */

/** A listing as browse sees it. Replaced, never changed, when the listing changes. */
export interface IndexedListing {
  readonly id: string;
  readonly agentId: string;
  readonly category: string;
  readonly listingType: string;
  /** price_wei: a number up to Number.MAX_SAFE_INTEGER, a bigint above (so equal prices are of one type). */
  readonly price: number | bigint;
  readonly timesPurchased: number;
  /** created_at in microseconds since 1970 (microsecondsOf). */
  readonly createdAt: number;
  /** The stored card, open (listingCardSql): its seller is appended when a page is written. */
  readonly card: string;
  /** A hash of its lexemes (wordsHash): a listing whose words did not change keeps its word lists. */
  readonly wordsHash: number;
  /** Where the index keeps it (set by the index; -1 until then). */
  slot: number;
}

/** A listing and its lexemes (its tsvector's, as Postgres parsed them), to be placed in the index. */
export interface ListingEntry {
  listing: IndexedListing;
  words: readonly string[];
}

/** A wei amount as the index keeps it: a number when it is one exactly, else a bigint. */
export function priceOf(wei: string | bigint): number | bigint {
  const value = BigInt(wei);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** A cursor's created_at (timestampPosition's text: UTC, six decimals) in microseconds since 1970. */
export function microsecondsOf(at: string): number {
  return Date.parse(`${at.slice(0, 23)}Z`) * 1000 + Number(at.slice(23, 26));
}

/** microsecondsOf's text again. */
export function timestampOfMicroseconds(micros: number): string {
  const below = ((micros % 1000) + 1000) % 1000;
  const millis = (micros - below) / 1000;
  return `${new Date(millis).toISOString().slice(0, 23)}${String(below).padStart(3, "0")}Z`;
}

/** A hash of lexemes (two FNV-1a hashes, 52 bits): equal words, equal hashes. */
export function wordsHash(words: readonly string[]): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const word of words) {
    for (let k = 0; k < word.length; k++) {
      const code = word.charCodeAt(k);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x5bd1e995);
    }
    a = Math.imul(a ^ 0x20, 0x01000193);
    b = Math.imul(b ^ 0x20, 0x5bd1e995);
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff);
}

/** A page's position in a sort: a listing's sort keys (a cursor's, for the page after it). */
export type SortPoint = Pick<IndexedListing, "id" | "price" | "timesPurchased" | "createdAt">;

/** The filters of one page, already checked (listing-browse.ts). */
export interface IndexQuery {
  sort: ListingSort;
  /** Rows wanted: a page's limit and one more, to know whether another page follows. */
  rows: number;
  category?: string;
  /** Any of these categories. */
  categories?: readonly string[];
  listingType?: string;
  minPrice?: number | bigint;
  maxPrice?: number | bigint;
  excludeAgent?: string;
  /** Lexemes that must each start one of the listing's lexemes (a keyword, as Postgres parsed it). */
  prefixes?: readonly string[];
  after?: SortPoint;
}

/** Whether `a` comes before `b` in each sort (the same order as the SQL's, ids compared as text). */
const PRECEDES: Record<ListingSort, (a: SortPoint, b: SortPoint) => boolean> = {
  newest: (a, b) => a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id),
  cheapest: (a, b) => a.price < b.price || (a.price === b.price && a.id < b.id),
  popular: (a, b) => a.timesPurchased > b.timesPurchased || (a.timesPurchased === b.timesPurchased && a.id > b.id),
  // cheapest's order reversed.
  expensive: (a, b) => a.price > b.price || (a.price === b.price && a.id > b.id),
};

const SORTS = Object.keys(PRECEDES) as ListingSort[];

/**
 * Candidates gathered and ranked rather than found by walking a sorted list: a keyword's matches,
 * or a price range's listings, when there are at most this many. Past it, the matches are common
 * enough that a walk in the sort's order meets a page of them soon.
 */
const GATHER_AT_MOST = 4_000;

/** Changes applied one by one; more, and the sorted lists are sorted again from scratch. */
const RESORT_ABOVE = 2_000;

/** A list of listings kept in one sort's order. */
class SortedListings {
  items: IndexedListing[] = [];
  readonly precedes: (a: SortPoint, b: SortPoint) => boolean;
  constructor(precedes: (a: SortPoint, b: SortPoint) => boolean) {
    this.precedes = precedes;
  }

  /** The index of the first item that comes after `point` (all of them when none does). */
  firstAfter(point: SortPoint): number {
    return partitionPoint(this.items, (item) => !this.precedes(point, item));
  }

  /** The index of the first item that `point` does not come after (where it is, or would go). */
  firstNotBefore(point: SortPoint): number {
    return partitionPoint(this.items, (item) => this.precedes(item, point));
  }

  insert(listing: IndexedListing): void {
    this.items.splice(this.firstNotBefore(listing), 0, listing);
  }

  remove(listing: IndexedListing): void {
    const at = this.firstNotBefore(listing);
    if (this.items[at] !== listing) throw new Error(`listing index: ${listing.id} is not where its keys put it`);
    this.items.splice(at, 1);
  }

  sortAll(listings: IndexedListing[]): void {
    this.items = listings.sort((a, b) => (this.precedes(a, b) ? -1 : 1));
  }
}

/** Each sort's list of the listings. */
type SortedSet = Record<ListingSort, SortedListings>;

function sortedSet(): SortedSet {
  return {
    newest: new SortedListings(PRECEDES.newest),
    cheapest: new SortedListings(PRECEDES.cheapest),
    popular: new SortedListings(PRECEDES.popular),
    expensive: new SortedListings(PRECEDES.expensive),
  };
}

/**
 * A page's filters over slots: codes of its category and type (-1: any), ranges of positions in
 * the whole index's lists by price and in the page's sort, the generation of its keyword's marks.
 */
interface SlotFilter {
  category: number;
  /** Several categories: whether each code is one of them. */
  categoryIn?: Uint8Array;
  listingType: number;
  priceFrom: number;
  priceTo: number;
  after: number;
  excludeAgent?: string;
  words: number;
}

export class ListingIndex {
  /** Each listing by its slot (its place in the word lists); undefined once replaced or removed. */
  private slots: (IndexedListing | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private deadSlots = 0;
  /** Each lexeme's slots (some of them dead), and every lexeme in order, to find those a prefix starts. */
  private postings = new Map<string, number[] | Int32Array>();
  private lexemes: string[] = [];
  private all = sortedSet();
  /** Marks of a keyword's matches, by slot: a slot holds the generation of the last word it matched. */
  private marks = new Int32Array(1024);
  private generation = 0;
  /** Category and type names as small numbers, and each slot's. */
  private readonly codes = new Map<string, number>();
  private categoryOf = new Uint8Array(1024);
  private typeOf = new Uint8Array(1024);
  /** Each slot's position in the whole index's list of each sort, worked out again after changes. */
  private rankOf: Record<ListingSort, Int32Array> = {
    newest: new Int32Array(1024),
    cheapest: new Int32Array(1024),
    popular: new Int32Array(1024),
    expensive: new Int32Array(1024),
  };
  private ranksStale = true;

  get size(): number {
    return this.slotOf.size;
  }

  /** A new index's listings, a batch at a time, before it answers any page (then `sorted`). */
  add(entries: Iterable<ListingEntry>): void {
    for (const entry of entries) this.place(entry);
  }

  /** After a new index's last `add`: its words and lists in order. */
  sorted(): void {
    // Word lists as they will mostly stay: four bytes a slot, no room to grow.
    for (const [lexeme, list] of this.postings) this.postings.set(lexeme, Int32Array.from(list));
    this.lexemes = [...this.postings.keys()].sort();
    this.sortAgain();
  }

  /** A new index's listings at once. */
  load(entries: Iterable<ListingEntry>): void {
    this.add(entries);
    this.sorted();
  }

  /**
   * Listings changed since the last load or update: each id is shown as `listing` now, or not at
   * all (undefined: unlisted, deleted).
   */
  update(changes: Map<string, ListingEntry | undefined>): void {
    const resort = changes.size > RESORT_ABOVE;
    const newLexemes: string[] = [];
    for (const [id, entry] of changes) {
      const slot = this.slotOf.get(id);
      const old = slot === undefined ? undefined : this.slots[slot];
      if (old && !resort) this.unsort(old);
      if (old && entry && old.wordsHash === entry.listing.wordsHash) {
        // Same words: the new version takes the old one's slot, and its word lists hold.
        this.fill(slot as number, entry.listing);
      } else {
        if (old) this.kill(slot as number, id);
        if (entry) this.place(entry, newLexemes);
      }
      if (entry && !resort) this.sortIn(entry.listing);
    }
    if (newLexemes.length > 100) this.lexemes = [...this.lexemes, ...newLexemes].sort();
    else for (const lexeme of newLexemes) this.lexemes.splice(lowerBound(this.lexemes, lexeme), 0, lexeme);
    if (resort) this.sortAgain();
    if (this.deadSlots > 1_000 && this.deadSlots > this.slotOf.size / 4) this.compact();
  }

  /** The first `query.rows` listings of the sort that pass every filter, after `query.after`. */
  search(query: IndexQuery): IndexedListing[] {
    this.rankAgain();
    const category = query.category === undefined ? -1 : this.codes.get(query.category);
    const listingType = query.listingType === undefined ? -1 : this.codes.get(query.listingType);
    // A category or type no listing has: an empty page.
    if (category === undefined || listingType === undefined) return [];
    let categoryIn: Uint8Array | undefined;
    if (query.categories) {
      categoryIn = new Uint8Array(256);
      for (const name of query.categories) {
        const code = this.codes.get(name);
        if (code !== undefined) categoryIn[code] = 1;
      }
    }
    // Ranges of positions in the whole index's lists: the listings in the price range, and after the cursor.
    const byPrice = this.all.cheapest.items;
    const filter: SlotFilter = {
      category,
      categoryIn,
      listingType,
      priceFrom: query.minPrice === undefined ? 0 : lowerPriceBound(byPrice, query.minPrice),
      priceTo: query.maxPrice === undefined ? byPrice.length : upperPriceBound(byPrice, query.maxPrice),
      after: query.after ? this.all[query.sort].firstAfter(query.after) : 0,
      excludeAgent: query.excludeAgent,
      words: -1,
    };
    if (query.prefixes && query.prefixes.length > 0) {
      const { matches, generation } = this.markMatches(query.prefixes);
      if (matches.length <= GATHER_AT_MOST) return this.best(matches, query, filter);
      filter.words = generation;
    }
    const byPriceOrder = query.sort === "cheapest" || query.sort === "expensive";
    if (!byPriceOrder && filter.priceTo - filter.priceFrom <= GATHER_AT_MOST) {
      const slots = byPrice.slice(filter.priceFrom, filter.priceTo).map((listing) => listing.slot);
      return this.best(slots, query, filter);
    }
    // Walk the sort's list from the cursor until the page is full.
    const list = this.all[query.sort];
    const found: IndexedListing[] = [];
    let at = query.after ? list.firstAfter(query.after) : 0;
    let end = list.items.length;
    if (query.sort === "cheapest") {
      // By price, the range is where the walk starts and ends.
      at = Math.max(at, filter.priceFrom);
      end = filter.priceTo;
    } else if (query.sort === "expensive") {
      // The list by price reversed: the range's positions counted from its end.
      at = Math.max(at, end - filter.priceTo);
      end -= filter.priceFrom;
    }
    for (; at < end && found.length < query.rows; at++) {
      const listing = list.items[at] as IndexedListing;
      if (this.passes(listing.slot, filter)) found.push(listing);
    }
    return found;
  }

  /** Whether the listing in `slot` passes every filter (its position by price and in the sort from the ranks). */
  private passes(slot: number, filter: SlotFilter): boolean {
    if (filter.category >= 0 && this.categoryOf[slot] !== filter.category) return false;
    if (filter.categoryIn && filter.categoryIn[this.categoryOf[slot] as number] !== 1) return false;
    if (filter.listingType >= 0 && this.typeOf[slot] !== filter.listingType) return false;
    const byPrice = this.rankOf.cheapest[slot] as number;
    if (byPrice < filter.priceFrom || byPrice >= filter.priceTo) return false;
    if (filter.words >= 0 && this.marks[slot] !== filter.words) return false;
    return filter.excludeAgent === undefined || (this.slots[slot] as IndexedListing).agentId !== filter.excludeAgent;
  }

  /** The best rows among the listings in `slots` that pass the filters and come after the cursor: their ranks, sorted. */
  private best(slots: ArrayLike<number>, query: IndexQuery, filter: SlotFilter): IndexedListing[] {
    const rank = this.rankOf[query.sort];
    const ranks: number[] = [];
    for (let k = 0; k < slots.length; k++) {
      const slot = slots[k] as number;
      const at = rank[slot] as number;
      if (at >= filter.after && this.passes(slot, filter)) ranks.push(at);
    }
    const sorted = Int32Array.from(ranks).sort();
    const items = this.all[query.sort].items;
    return Array.from(sorted.subarray(0, query.rows), (at) => items[at] as IndexedListing);
  }

  /** Each listing's position in each of the whole index's sorted lists, by slot, after a change. */
  private rankAgain(): void {
    if (!this.ranksStale) return;
    for (const sort of SORTS) {
      const rank = this.rankOf[sort];
      this.all[sort].items.forEach((listing, at) => {
        rank[listing.slot] = at;
      });
    }
    this.ranksStale = false;
  }

  /**
   * The slots of the listings with, for each prefix, a lexeme it starts: each prefix's word lists
   * mark the slots that the previous prefix marked; those the last one marks are the matches.
   */
  private markMatches(prefixes: readonly string[]): { matches: number[]; generation: number } {
    if (this.generation + prefixes.length + 1 >= 0x7fffffff) {
      this.marks.fill(0);
      this.generation = 0;
    }
    const { marks, lexemes, postings, slots } = this;
    const matches: number[] = [];
    const first = this.generation + 1;
    for (let k = 0; k < prefixes.length; k++) {
      const prefix = prefixes[k] as string;
      const generation = first + k;
      const previous = k === 0 ? -1 : generation - 1;
      const last = k === prefixes.length - 1;
      for (let w = lowerBound(lexemes, prefix); w < lexemes.length; w++) {
        const lexeme = lexemes[w] as string;
        if (!lexeme.startsWith(prefix)) break;
        const list = postings.get(lexeme) as number[] | Int32Array;
        for (let p = 0; p < list.length; p++) {
          const slot = list[p] as number;
          const mark = marks[slot] as number;
          if (mark === generation || (previous >= 0 && mark !== previous)) continue;
          marks[slot] = generation;
          if (last && slots[slot] !== undefined) matches.push(slot);
        }
      }
    }
    this.generation = first + prefixes.length - 1;
    return { matches, generation: this.generation };
  }

  /** A listing in a new slot, in the word lists of its lexemes; its new lexemes are added to `newLexemes`. */
  private place({ listing, words }: ListingEntry, newLexemes?: string[]): void {
    const slot = this.slots.length;
    this.slots.push(undefined);
    this.fill(slot, listing);
    for (const lexeme of new Set(words)) {
      const list = this.postings.get(lexeme);
      if (Array.isArray(list)) list.push(slot);
      else if (list) {
        const longer = new Int32Array(list.length + 1);
        longer.set(list);
        longer[list.length] = slot;
        this.postings.set(lexeme, longer);
      } else {
        this.postings.set(lexeme, [slot]);
        newLexemes?.push(lexeme);
      }
    }
  }

  /** `listing` in `slot`, with its codes (the arrays by slot grown to hold it). */
  private fill(slot: number, listing: IndexedListing): void {
    if (slot >= this.marks.length) {
      const grown = <T extends Int32Array | Uint8Array>(array: T): T => {
        const bigger = new (array.constructor as new (length: number) => T)(array.length * 2);
        bigger.set(array);
        return bigger;
      };
      this.marks = grown(this.marks);
      this.categoryOf = grown(this.categoryOf);
      this.typeOf = grown(this.typeOf);
      for (const sort of SORTS) this.rankOf[sort] = grown(this.rankOf[sort]);
    }
    this.slots[slot] = listing;
    this.slotOf.set(listing.id, slot);
    listing.slot = slot;
    this.categoryOf[slot] = this.codeOf(listing.category);
    this.typeOf[slot] = this.codeOf(listing.listingType);
  }

  private codeOf(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.codes.size;
      if (code > 255) throw new Error("listing index: more than 256 categories and types");
      this.codes.set(name, code);
    }
    return code;
  }

  private kill(slot: number, id: string): void {
    this.slots[slot] = undefined;
    this.slotOf.delete(id);
    this.deadSlots++;
  }

  private unsort(listing: IndexedListing): void {
    this.ranksStale = true;
    for (const sort of SORTS) this.all[sort].remove(listing);
  }

  private sortIn(listing: IndexedListing): void {
    this.ranksStale = true;
    for (const sort of SORTS) this.all[sort].insert(listing);
  }

  private sortAgain(): void {
    this.ranksStale = true;
    const live = this.slots.filter((listing): listing is IndexedListing => listing !== undefined);
    this.all = sortedSet();
    for (const sort of SORTS) this.all[sort].sortAll([...live]);
  }

  /** New slots for the live listings, word lists without the dead ones. */
  private compact(): void {
    const old = this.slots;
    const moved = new Int32Array(old.length).fill(-1);
    this.slots = [];
    old.forEach((listing, slot) => {
      if (!listing) return;
      moved[slot] = this.slots.length;
      this.slots.push(undefined);
      this.fill(this.slots.length - 1, listing);
    });
    const postings = new Map<string, Int32Array>();
    for (const [lexeme, list] of this.postings) {
      const kept = Int32Array.from(list, (slot) => moved[slot] as number).filter((slot) => slot >= 0);
      if (kept.length > 0) postings.set(lexeme, kept);
    }
    this.postings = postings;
    this.lexemes = this.lexemes.filter((lexeme) => postings.has(lexeme));
    this.deadSlots = 0;
    this.ranksStale = true;
  }
}

/** The first index of `items` whose item is not `before` (the items `before` holds for come first). */
function partitionPoint<T>(items: readonly T[], before: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(items[middle] as T)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first index of sorted `items` not less than `value`. */
function lowerBound(items: readonly string[], value: string): number {
  return partitionPoint(items, (item) => item < value);
}

/** The first listing (sorted by price) that costs at least `price`. */
function lowerPriceBound(items: readonly IndexedListing[], price: number | bigint): number {
  return partitionPoint(items, (listing) => listing.price < price);
}

/** The first listing (sorted by price) that costs more than `price`. */
function upperPriceBound(items: readonly IndexedListing[], price: number | bigint): number {
  return partitionPoint(items, (listing) => listing.price <= price);
}
