import type { ListingSort } from "../shared/listing-terms.ts";

/*
 * The listings browse can show, in memory: each one's filters, sort keys, stored card and words,
 * sorted four ways, and each word's listings (a list, or a bitmap for a word of many). A page is
 * the first rows of one of the sorted lists that pass the filters, found by walking the list from
 * the cursor; when the filters together leave few listings (each common on its own, or one rare),
 * the smallest set of candidates one filter names (a keyword's matches, a price range's listings,
 * a category's, a type's) is gathered instead and its best rows taken. A keyword's matches are a
 * bitmap built from its words' lists and bitmaps, so a common word (`a`, `data`: tens of thousands
 * of listings, each prefix of a dozen words) costs a few thousand words of bits, not a mark for
 * each of its listings. Nothing here talks to Postgres: listing-index-sync.ts loads it and keeps
 * it current, listing-browse.ts asks it.
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
 * How many listings a walk may test for each candidate the smallest gathered set would hold before
 * it stops and gathers instead: a walk's test costs about what a gathered candidate does (it then
 * also sorts the few that pass), so a page costs at most about three times the cheaper of the two.
 */
const WALK_PER_CANDIDATE = 2;

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
 * the whole index's lists by price and in the page's sort, and its keyword's matches, a bit a slot.
 */
interface SlotFilter {
  category: number;
  /** Several categories: whether each code is one of them. */
  categoryIn?: Uint8Array;
  listingType: number;
  /** Whether a price bound is set (else priceFrom and priceTo hold every listing). */
  priced: boolean;
  priceFrom: number;
  priceTo: number;
  after: number;
  excludeAgent?: string;
  keyword?: Uint32Array;
}

/** The candidates a page may be gathered from: what one filter leaves, at most `size` slots (some dead, some twice). */
type Candidates =
  | { kind: "keyword"; size: number }
  | { kind: "byPrice"; from: number; to: number; size: number }
  | { kind: "code"; code: number; size: number };

function smallerOf(a: Candidates | undefined, b: Candidates): Candidates {
  return a && a.size <= b.size ? a : b;
}

/**
 * Tuning for the tests, each way alone: `walkPerCandidate` 0 gathers whenever a filter names
 * candidates, Infinity always walks; `bitmapAbove` is how many listings a word may have before its
 * list becomes a bitmap (0: every word's, Infinity: none).
 */
export interface ListingIndexOptions {
  walkPerCandidate?: number;
  bitmapAbove?: number;
}

/** `array` grown to at least `length` items (doubling), its items first. */
function grownTo<T extends Int32Array | Uint32Array | Uint8Array>(array: T, length: number): T {
  if (length <= array.length) return array;
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(length, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** How many bits of `bits` are set, in its first `words` words. */
function countBits(bits: Uint32Array, words: number): number {
  let count = 0;
  for (let w = 0; w < words; w++) {
    let v = bits[w] as number;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    count += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
  }
  return count;
}

export class ListingIndex {
  /** Each listing by its slot (its place in the word lists); undefined once replaced or removed. */
  private slots: (IndexedListing | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private deadSlots = 0;
  /**
   * Each lexeme's slots (some of them dead): a list, or for a lexeme of many listings a bitmap (a
   * bit a slot), smaller than its list would be; and every lexeme in order, to find those a prefix starts.
   */
  private postings = new Map<string, number[] | Int32Array>();
  private bitmaps = new Map<string, Uint32Array>();
  private lexemes: string[] = [];
  private all = sortedSet();
  /** A page's keyword's matches, and one prefix's, a bit a slot (reused by every page). */
  private keywordBits = new Uint32Array(32);
  private prefixBits = new Uint32Array(32);
  /** Marks of the slots a gathering met, by slot: the generation of the last one that met it. */
  private met = new Int32Array(1024);
  private generation = 0;
  /** Category and type names as small numbers, each slot's, and each code's slots (some dead or moved on). */
  private readonly codes = new Map<string, number>();
  private categoryOf = new Uint8Array(1024);
  private typeOf = new Uint8Array(1024);
  private codeSlots: number[][] = [];
  /** Each slot's position in the whole index's list of each sort, and each sort's slots in order, worked out again after changes. */
  private rankOf: Record<ListingSort, Int32Array> = {
    newest: new Int32Array(1024),
    cheapest: new Int32Array(1024),
    popular: new Int32Array(1024),
    expensive: new Int32Array(1024),
  };
  private slotsInOrder: Record<ListingSort, Int32Array> = {
    newest: new Int32Array(0),
    cheapest: new Int32Array(0),
    popular: new Int32Array(0),
    expensive: new Int32Array(0),
  };
  private ranksStale = true;
  private readonly walkPerCandidate: number;
  private readonly bitmapAbove: number | undefined;

  constructor(options: ListingIndexOptions = {}) {
    this.walkPerCandidate = options.walkPerCandidate ?? WALK_PER_CANDIDATE;
    this.bitmapAbove = options.bitmapAbove;
  }

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
    this.lexemes = [...this.postings.keys(), ...this.bitmaps.keys()].sort();
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
      priced: query.minPrice !== undefined || query.maxPrice !== undefined,
      priceFrom: query.minPrice === undefined ? 0 : lowerPriceBound(byPrice, query.minPrice),
      priceTo: query.maxPrice === undefined ? byPrice.length : upperPriceBound(byPrice, query.maxPrice),
      after: query.after ? this.all[query.sort].firstAfter(query.after) : 0,
      excludeAgent: query.excludeAgent,
    };
    // The smallest set of candidates one filter names, and the share of listings all the filters
    // leave if each leaves its own share of any other's (the walk's: by price, it covers the range only).
    const listings = Math.max(1, this.slotOf.size);
    let smallest: Candidates | undefined;
    let share = 1;
    if (query.prefixes && query.prefixes.length > 0) {
      const matches = this.matchKeyword(query.prefixes);
      if (matches === 0) return [];
      filter.keyword = this.keywordBits;
      smallest = { kind: "keyword", size: matches };
      share *= Math.min(1, matches / listings);
    }
    const byPriceOrder = query.sort === "cheapest" || query.sort === "expensive";
    if (!byPriceOrder && filter.priced) {
      const size = filter.priceTo - filter.priceFrom;
      smallest = smallerOf(smallest, { kind: "byPrice", from: filter.priceFrom, to: filter.priceTo, size });
      share *= size / listings;
    }
    for (const code of [category, listingType]) {
      if (code < 0) continue;
      const size = this.codeSlots[code]?.length ?? 0;
      smallest = smallerOf(smallest, { kind: "code", code, size });
      share *= Math.min(1, size / listings);
    }
    // Walk the sort's list from the cursor until the page is full, unless that should take more
    // tests than `walkPerCandidate` times the smallest set's candidates, nor ever more than that:
    // then gather.
    const budget = smallest ? smallest.size * this.walkPerCandidate : Number.POSITIVE_INFINITY;
    if (smallest && !(query.rows <= share * budget)) return this.gather(smallest, query, filter);
    const order = this.slotsInOrder[query.sort];
    let at = filter.after;
    let end = order.length;
    if (query.sort === "cheapest") {
      // By price, the range is where the walk starts and ends.
      at = Math.max(at, filter.priceFrom);
      end = filter.priceTo;
    } else if (query.sort === "expensive") {
      // The list by price reversed: the range's positions counted from its end.
      at = Math.max(at, end - filter.priceTo);
      end -= filter.priceFrom;
    }
    const stop = Math.min(end, at + budget);
    const items = this.all[query.sort].items;
    const found: IndexedListing[] = [];
    for (; at < stop && found.length < query.rows; at++) {
      if (this.passes(order[at] as number, filter)) found.push(items[at] as IndexedListing);
    }
    if (found.length >= query.rows || at >= end || !smallest) return found;
    return this.gather(smallest, query, filter);
  }

  /** Whether the listing in `slot` passes every filter (its position by price from the ranks). */
  private passes(slot: number, filter: SlotFilter): boolean {
    if (filter.category >= 0 && this.categoryOf[slot] !== filter.category) return false;
    if (filter.categoryIn && filter.categoryIn[this.categoryOf[slot] as number] !== 1) return false;
    if (filter.listingType >= 0 && this.typeOf[slot] !== filter.listingType) return false;
    if (filter.priced) {
      const byPrice = this.rankOf.cheapest[slot] as number;
      if (byPrice < filter.priceFrom || byPrice >= filter.priceTo) return false;
    }
    if (filter.keyword && (((filter.keyword[slot >>> 5] as number) >>> (slot & 31)) & 1) === 0) return false;
    return filter.excludeAgent === undefined || (this.slots[slot] as IndexedListing).agentId !== filter.excludeAgent;
  }

  /**
   * The keyword's matches in keywordBits: for each prefix, the slots of the lexemes it starts (a
   * lexeme's bitmap a word at a time, its list a slot at a time), and of those, the slots every
   * prefix has. Answers how many (some dead).
   */
  private matchKeyword(prefixes: readonly string[]): number {
    const words = (this.slots.length + 31) >>> 5;
    const matches = this.keywordBits;
    for (let k = 0; k < prefixes.length; k++) {
      const prefix = prefixes[k] as string;
      const bits = k === 0 ? matches : this.prefixBits;
      bits.fill(0, 0, words);
      const from = lowerBound(this.lexemes, prefix);
      let at = from;
      for (; at < this.lexemes.length && (this.lexemes[at] as string).startsWith(prefix); at++) {
        const lexeme = this.lexemes[at] as string;
        const bitmap = this.bitmaps.get(lexeme);
        if (bitmap) {
          for (let w = 0; w < words; w++) bits[w] = (bits[w] as number) | (bitmap[w] as number);
          continue;
        }
        const list = this.postings.get(lexeme) as number[] | Int32Array;
        for (let p = 0; p < list.length; p++) {
          const slot = list[p] as number;
          bits[slot >>> 5] = (bits[slot >>> 5] as number) | (1 << (slot & 31));
        }
      }
      // A prefix that starts no lexeme: nothing matches.
      if (at === from) return 0;
      if (k > 0) for (let w = 0; w < words; w++) matches[w] = (matches[w] as number) & (bits[w] as number);
    }
    return countBits(matches, words);
  }

  /** The best rows among `candidates` that pass the filters and come after the cursor: their ranks, sorted. */
  private gather(candidates: Candidates, query: IndexQuery, filter: SlotFilter): IndexedListing[] {
    if (this.generation >= 0x7ffffffe) {
      this.met.fill(0);
      this.generation = 0;
    }
    const generation = ++this.generation;
    const { met, slots } = this;
    const rank = this.rankOf[query.sort];
    const ranks: number[] = [];
    const meet = (slot: number) => {
      // A code's slot listed again (its listing moved to another code and back) is met once.
      if (met[slot] === generation) return;
      met[slot] = generation;
      if (slots[slot] === undefined) return;
      const at = rank[slot] as number;
      if (at >= filter.after && this.passes(slot, filter)) ranks.push(at);
    };
    if (candidates.kind === "keyword") {
      const matches = this.keywordBits;
      const words = (slots.length + 31) >>> 5;
      for (let w = 0; w < words; w++) {
        for (let bits = matches[w] as number; bits !== 0; bits &= bits - 1) {
          meet(w * 32 + 31 - Math.clz32(bits & -bits));
        }
      }
    } else if (candidates.kind === "byPrice") {
      const byPrice = this.slotsInOrder.cheapest;
      for (let at = candidates.from; at < candidates.to; at++) meet(byPrice[at] as number);
    } else {
      for (const slot of this.codeSlots[candidates.code] ?? []) meet(slot);
    }
    const sorted = Int32Array.from(ranks).sort();
    const items = this.all[query.sort].items;
    return Array.from(sorted.subarray(0, query.rows), (at) => items[at] as IndexedListing);
  }

  /** Each listing's position in each of the whole index's sorted lists, by slot, and each list's slots, after a change. */
  private rankAgain(): void {
    if (!this.ranksStale) return;
    for (const sort of SORTS) {
      const rank = this.rankOf[sort];
      const items = this.all[sort].items;
      const order =
        this.slotsInOrder[sort].length === items.length ? this.slotsInOrder[sort] : new Int32Array(items.length);
      for (let at = 0; at < items.length; at++) {
        const slot = (items[at] as IndexedListing).slot;
        rank[slot] = at;
        order[at] = slot;
      }
      this.slotsInOrder[sort] = order;
    }
    this.ranksStale = false;
  }

  /** How many listings a lexeme may have in a list: more, and a bitmap of every slot is smaller. */
  private listAtMost(): number {
    return this.bitmapAbove ?? this.met.length >>> 5;
  }

  /** A listing in a new slot, in the word lists of its lexemes; its new lexemes are added to `newLexemes`. */
  private place({ listing, words }: ListingEntry, newLexemes?: string[]): void {
    const slot = this.slots.length;
    this.slots.push(undefined);
    this.fill(slot, listing);
    for (const lexeme of new Set(words)) {
      const bitmap = this.bitmaps.get(lexeme);
      if (bitmap) {
        bitmap[slot >>> 5] = (bitmap[slot >>> 5] as number) | (1 << (slot & 31));
        continue;
      }
      let list = this.postings.get(lexeme);
      if (!list) {
        list = [];
        this.postings.set(lexeme, list);
        newLexemes?.push(lexeme);
      } else if (!Array.isArray(list)) {
        // A lexeme's first new listing since the load: its list grows again.
        list = Array.from(list);
        this.postings.set(lexeme, list);
      }
      list.push(slot);
      if (list.length > this.listAtMost()) {
        this.bitmaps.set(lexeme, this.bitmapOf(list));
        this.postings.delete(lexeme);
      }
    }
  }

  /** A bitmap of `slots`, as long as every bitmap. */
  private bitmapOf(slots: ArrayLike<number>): Uint32Array {
    const bitmap = new Uint32Array(this.met.length >>> 5);
    for (let p = 0; p < slots.length; p++) {
      const slot = slots[p] as number;
      bitmap[slot >>> 5] = (bitmap[slot >>> 5] as number) | (1 << (slot & 31));
    }
    return bitmap;
  }

  /** `listing` in `slot`, with its codes (the arrays by slot, bitmaps too, grown to hold it). */
  private fill(slot: number, listing: IndexedListing): void {
    if (slot >= this.met.length) {
      const length = slot + 1;
      this.met = grownTo(this.met, length);
      this.categoryOf = grownTo(this.categoryOf, length);
      this.typeOf = grownTo(this.typeOf, length);
      for (const sort of SORTS) this.rankOf[sort] = grownTo(this.rankOf[sort], length);
      const words = this.met.length >>> 5;
      for (const [lexeme, bitmap] of this.bitmaps) this.bitmaps.set(lexeme, grownTo(bitmap, words));
      this.keywordBits = grownTo(this.keywordBits, words);
      this.prefixBits = grownTo(this.prefixBits, words);
    }
    const old = this.slots[slot];
    this.slots[slot] = listing;
    this.slotOf.set(listing.id, slot);
    listing.slot = slot;
    const category = this.codeOf(listing.category);
    const listingType = this.codeOf(listing.listingType);
    // A slot is listed under its codes once, again only when a new version changes one.
    if (!old || this.categoryOf[slot] !== category) this.codeSlots[category]?.push(slot);
    if (!old || this.typeOf[slot] !== listingType) this.codeSlots[listingType]?.push(slot);
    this.categoryOf[slot] = category;
    this.typeOf[slot] = listingType;
  }

  private codeOf(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.codes.size;
      if (code > 255) throw new Error("listing index: more than 256 categories and types");
      this.codes.set(name, code);
      this.codeSlots.push([]);
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

  /** New slots for the live listings; word lists, bitmaps and code lists without the dead ones. */
  private compact(): void {
    const old = this.slots;
    const moved = new Int32Array(old.length).fill(-1);
    this.slots = [];
    this.codeSlots = this.codeSlots.map(() => []);
    old.forEach((listing, slot) => {
      if (!listing) return;
      moved[slot] = this.slots.length;
      this.slots.push(undefined);
      this.fill(this.slots.length - 1, listing);
    });
    const lists = new Map<string, Int32Array>();
    for (const [lexeme, list] of this.postings) {
      const kept = Int32Array.from(list, (slot) => moved[slot] as number).filter((slot) => slot >= 0);
      if (kept.length > 0) lists.set(lexeme, kept);
    }
    const bitmaps = new Map<string, Uint32Array>();
    for (const [lexeme, bitmap] of this.bitmaps) {
      const kept: number[] = [];
      for (let w = 0; w < bitmap.length; w++) {
        for (let bits = bitmap[w] as number; bits !== 0; bits &= bits - 1) {
          const slot = moved[w * 32 + 31 - Math.clz32(bits & -bits)];
          if (slot !== undefined && slot >= 0) kept.push(slot);
        }
      }
      if (kept.length > this.listAtMost()) bitmaps.set(lexeme, this.bitmapOf(kept));
      else if (kept.length > 0) lists.set(lexeme, Int32Array.from(kept).sort());
    }
    this.postings = lists;
    this.bitmaps = bitmaps;
    this.lexemes = this.lexemes.filter((lexeme) => lists.has(lexeme) || bitmaps.has(lexeme));
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
