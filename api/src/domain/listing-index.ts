import type { ListingSort } from "../schemas/listing.ts";

/*
 * The listings browse can show, in memory: each one's filters, sort keys, stored card and words,
 * sorted three ways (overall and within each category), and each word's listings. A page is the
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
  readonly price: bigint;
  readonly timesPurchased: number;
  /** created_at in UTC to the microsecond (timestampPosition): its order is the text's. */
  readonly createdAt: string;
  /** The stored card, open (listingCardSql): its seller is appended when a page is written. */
  readonly card: string;
  /** A hash of its lexemes (wordsHash): a listing whose words did not change keeps its word lists. */
  readonly wordsHash: number;
}

/** A listing and its lexemes (its tsvector's, as Postgres parsed them), to be placed in the index. */
export interface ListingEntry {
  listing: IndexedListing;
  words: readonly string[];
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
  listingType?: string;
  minPrice?: bigint;
  maxPrice?: bigint;
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
    let low = 0;
    let high = this.items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.precedes(point, this.items[middle] as IndexedListing)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** The index of the first item that `point` does not come after (where it is, or would go). */
  firstNotBefore(point: SortPoint): number {
    let low = 0;
    let high = this.items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.precedes(this.items[middle] as IndexedListing, point)) low = middle + 1;
      else high = middle;
    }
    return low;
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

/** Each sort's list of a set of listings (all of them, or a category's). */
type SortedSet = Record<ListingSort, SortedListings>;

function sortedSet(): SortedSet {
  return {
    newest: new SortedListings(PRECEDES.newest),
    cheapest: new SortedListings(PRECEDES.cheapest),
    popular: new SortedListings(PRECEDES.popular),
  };
}

/** The first `rows` listings in a sort's order among those offered. */
class BestRows {
  readonly rows: IndexedListing[] = [];
  readonly capacity: number;
  readonly precedes: (a: SortPoint, b: SortPoint) => boolean;
  constructor(capacity: number, precedes: (a: SortPoint, b: SortPoint) => boolean) {
    this.capacity = capacity;
    this.precedes = precedes;
  }

  offer(listing: IndexedListing): void {
    const { rows } = this;
    if (rows.length === this.capacity && !this.precedes(listing, rows[rows.length - 1] as IndexedListing)) return;
    let at = rows.length;
    while (at > 0 && this.precedes(listing, rows[at - 1] as IndexedListing)) at--;
    rows.splice(at, 0, listing);
    if (rows.length > this.capacity) rows.pop();
  }
}

export class ListingIndex {
  /** Each listing by its slot (its place in the word lists); undefined once replaced or removed. */
  private slots: (IndexedListing | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private deadSlots = 0;
  /** Each lexeme's slots (some of them dead), and every lexeme in order, to find those a prefix starts. */
  private postings = new Map<string, number[]>();
  private lexemes: string[] = [];
  private all = sortedSet();
  private byCategory = new Map<string, SortedSet>();
  /** Marks of a keyword's matches, by slot: a slot holds the generation of the last word it matched. */
  private marks = new Uint32Array(1024);
  private generation = 0;

  get size(): number {
    return this.slotOf.size;
  }

  /** Everything at once: the listings browse can show. */
  load(entries: Iterable<ListingEntry>): void {
    this.slots = [];
    this.slotOf.clear();
    this.deadSlots = 0;
    this.postings = new Map();
    for (const entry of entries) this.place(entry);
    this.lexemes = [...this.postings.keys()].sort();
    this.sortAgain();
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
        this.slots[slot as number] = entry.listing;
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
    const set = query.category === undefined ? this.all : this.byCategory.get(query.category);
    if (!set) return [];
    let matchesWords: ((listing: IndexedListing) => boolean) | undefined;
    if (query.prefixes && query.prefixes.length > 0) {
      const { matches, generation } = this.markMatches(query.prefixes);
      if (matches.length <= GATHER_AT_MOST) return this.best(matches, query);
      const marks = this.marks;
      const slotOf = this.slotOf;
      matchesWords = (listing) => marks[slotOf.get(listing.id) as number] === generation;
    }
    const { minPrice, maxPrice } = query;
    const byPrice = set.cheapest;
    const priceFrom = minPrice === undefined ? 0 : lowerPriceBound(byPrice.items, minPrice);
    const priceTo = maxPrice === undefined ? byPrice.items.length : upperPriceBound(byPrice.items, maxPrice);
    if (query.sort !== "cheapest" && priceTo - priceFrom <= GATHER_AT_MOST) {
      return this.best(byPrice.items.slice(priceFrom, priceTo), query, matchesWords);
    }
    // Walk the sort's list from the cursor (from the lowest price, by price) until the page is full.
    const list = set[query.sort];
    const found: IndexedListing[] = [];
    let at = query.after ? list.firstAfter(query.after) : 0;
    let end = list.items.length;
    if (query.sort === "cheapest") {
      at = Math.max(at, priceFrom);
      end = priceTo;
    }
    for (; at < end && found.length < query.rows; at++) {
      const listing = list.items[at] as IndexedListing;
      if (passes(listing, query) && (!matchesWords || matchesWords(listing))) found.push(listing);
    }
    return found;
  }

  /** The best rows among `candidates` that pass the filters and come after the cursor. */
  private best(
    candidates: IndexedListing[],
    query: IndexQuery,
    matchesWords?: (listing: IndexedListing) => boolean,
  ): IndexedListing[] {
    const precedes = PRECEDES[query.sort];
    const best = new BestRows(query.rows, precedes);
    const { after } = query;
    for (const listing of candidates) {
      if (query.category !== undefined && listing.category !== query.category) continue;
      if (after && !precedes(after, listing)) continue;
      if (passes(listing, query) && (!matchesWords || matchesWords(listing))) best.offer(listing);
    }
    return best.rows;
  }

  /**
   * The listings with, for each prefix, a lexeme it starts: each prefix's word lists mark the
   * slots that the previous prefix marked; those the last one marks are the matches.
   */
  private markMatches(prefixes: readonly string[]): { matches: IndexedListing[]; generation: number } {
    if (this.generation + prefixes.length + 1 >= 0xffffffff) {
      this.marks.fill(0);
      this.generation = 0;
    }
    const marks = this.marks;
    const matches: IndexedListing[] = [];
    const first = this.generation + 1;
    prefixes.forEach((prefix, k) => {
      const generation = first + k;
      const last = k === prefixes.length - 1;
      const from = lowerBound(this.lexemes, prefix);
      for (let w = from; w < this.lexemes.length; w++) {
        const lexeme = this.lexemes[w] as string;
        if (!lexeme.startsWith(prefix)) break;
        for (const slot of this.postings.get(lexeme) as number[]) {
          if (k === 0 ? marks[slot] === generation : marks[slot] !== generation - 1) continue;
          marks[slot] = generation;
          if (last) {
            const listing = this.slots[slot];
            if (listing) matches.push(listing);
          }
        }
      }
    });
    this.generation = first + prefixes.length - 1;
    return { matches, generation: this.generation };
  }

  /** A listing in a new slot, in the word lists of its lexemes; its new lexemes are added to `newLexemes`. */
  private place({ listing, words }: ListingEntry, newLexemes?: string[]): void {
    const slot = this.slots.length;
    this.slots.push(listing);
    this.slotOf.set(listing.id, slot);
    if (slot >= this.marks.length) {
      const marks = new Uint32Array(this.marks.length * 2);
      marks.set(this.marks);
      this.marks = marks;
    }
    for (const lexeme of new Set(words)) {
      const list = this.postings.get(lexeme);
      if (list) list.push(slot);
      else {
        this.postings.set(lexeme, [slot]);
        newLexemes?.push(lexeme);
      }
    }
  }

  private kill(slot: number, id: string): void {
    this.slots[slot] = undefined;
    this.slotOf.delete(id);
    this.deadSlots++;
  }

  private unsort(listing: IndexedListing): void {
    for (const set of [this.all, this.byCategory.get(listing.category)]) {
      if (set) for (const sort of SORTS) set[sort].remove(listing);
    }
  }

  private sortIn(listing: IndexedListing): void {
    let set = this.byCategory.get(listing.category);
    if (!set) {
      set = sortedSet();
      this.byCategory.set(listing.category, set);
    }
    for (const sort of SORTS) {
      this.all[sort].insert(listing);
      set[sort].insert(listing);
    }
  }

  private sortAgain(): void {
    const live = this.slots.filter((listing): listing is IndexedListing => listing !== undefined);
    this.all = sortedSet();
    this.byCategory = new Map();
    const byCategory = new Map<string, IndexedListing[]>();
    for (const listing of live) {
      const list = byCategory.get(listing.category);
      if (list) list.push(listing);
      else byCategory.set(listing.category, [listing]);
    }
    for (const sort of SORTS) this.all[sort].sortAll([...live]);
    for (const [category, listings] of byCategory) {
      const set = sortedSet();
      for (const sort of SORTS) set[sort].sortAll([...listings]);
      this.byCategory.set(category, set);
    }
  }

  /** New slots for the live listings, word lists without the dead ones. */
  private compact(): void {
    const moved = new Int32Array(this.slots.length).fill(-1);
    const slots: IndexedListing[] = [];
    this.slots.forEach((listing, slot) => {
      if (!listing) return;
      moved[slot] = slots.length;
      this.slotOf.set(listing.id, slots.length);
      slots.push(listing);
    });
    const postings = new Map<string, number[]>();
    for (const [lexeme, list] of this.postings) {
      const kept = list.map((slot) => moved[slot] as number).filter((slot) => slot >= 0);
      if (kept.length > 0) postings.set(lexeme, kept);
    }
    this.slots = slots;
    this.postings = postings;
    this.lexemes = this.lexemes.filter((lexeme) => postings.has(lexeme));
    this.deadSlots = 0;
  }
}

function passes(listing: IndexedListing, query: IndexQuery): boolean {
  return (
    (query.listingType === undefined || listing.listingType === query.listingType) &&
    (query.minPrice === undefined || listing.price >= query.minPrice) &&
    (query.maxPrice === undefined || listing.price <= query.maxPrice) &&
    (query.excludeAgent === undefined || listing.agentId !== query.excludeAgent)
  );
}

/** The first index of sorted `items` not less than `value`. */
function lowerBound(items: readonly string[], value: string): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle] as string) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first listing (sorted by price) that costs at least `price`. */
function lowerPriceBound(items: readonly IndexedListing[], price: bigint): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle] as IndexedListing).price < price) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first listing (sorted by price) that costs more than `price`. */
function upperPriceBound(items: readonly IndexedListing[], price: bigint): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle] as IndexedListing).price <= price) low = middle + 1;
    else high = middle;
  }
  return low;
}
