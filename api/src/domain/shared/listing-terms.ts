/*
 * The words of a listing and of the browse: its categories and types, the browse's sorts and
 * limits. The listings' use cases, the read side's browse and the wire schemas
 * (schemas/listing.ts) all take them from here.
 */

export const LISTING_CATEGORIES = ["research", "writing", "coding", "analysis", "design", "data", "other"] as const;
export const LISTING_TYPES = ["FIXED", "BOUNTY"] as const;
/** The browse's orders: newest first, price ascending, most purchased first, price descending. */
export const LISTING_ORDERS = ["newest", "cheapest", "popular", "expensive"] as const;
/**
 * The sorts a browse request names: the orders, and `highest`, the live service's other name of
 * `expensive` (the same order; its cursors are `expensive`'s).
 */
export const LISTING_SORTS = [...LISTING_ORDERS, "highest"] as const;
export type ListingCategory = (typeof LISTING_CATEGORIES)[number];
export type ListingType = (typeof LISTING_TYPES)[number];
/** An order of the browse (what the read side sorts by). */
export type ListingSort = (typeof LISTING_ORDERS)[number];
/** A sort as a request names it. */
export type ListingSortName = (typeof LISTING_SORTS)[number];

/** The order a request's sort names. */
export function listingOrderOf(sort: ListingSortName): ListingSort {
  return sort === "highest" ? "expensive" : sort;
}

/**
 * The browse's `status`: only `active` (the default, what browse has always shown); the live
 * service's clients send it. Listings no longer active come with `include_completed=true`.
 */
export const LISTING_STATUSES = ["active"] as const;

/**
 * Where a listing stands for its seller: `active` (on the market), `paused` (taken off it by its
 * seller, who may put it back), `awaiting_funding` (a bounty hidden until its reward is in
 * escrow), `closed` (for good: deactivated, or a bounty refunded at its expiry).
 */
export const LISTING_STATES = ["active", "paused", "awaiting_funding", "closed"] as const;
export type ListingState = (typeof LISTING_STATES)[number];

/** A stored category as its type (the column holds only these: the routes validate what is written). */
export function storedCategory(value: string): ListingCategory {
  return LISTING_CATEGORIES.find((category) => category === value) ?? "other";
}

/** A stored listing type as its type. */
export function storedListingType(value: string): ListingType {
  return value === "BOUNTY" ? "BOUNTY" : "FIXED";
}

/** A listing's state from its flags. */
export function listingStateOf(row: {
  isActive: boolean;
  awaitingFunding: boolean;
  closedAt: Date | null;
}): ListingState {
  if (row.closedAt !== null) return "closed";
  if (row.isActive) return "active";
  return row.awaitingFunding ? "awaiting_funding" : "paused";
}

/** The starter filter: listings priced at or under $1. */
export const STARTER_MAX_WEI = 1_000_000n;
/** Words of a keyword search beyond this are ignored. */
export const KEYWORD_MAX_WORDS = 8;

/**
 * Hours the seller has to deliver when nothing else says: a bounty's default (its own
 * `deadline_hours` otherwise) and a purchase's (POST /api/listings/{id}/buy without `deadline_hours`;
 * routes/listings/buy.ts and schemas/offers.ts default to the same 72). A card shows it as the
 * listing's delivery time.
 */
export const DEFAULT_DELIVERY_HOURS = 72;
