/*
 * The words of a listing and of the browse: its categories and types, the browse's sorts and
 * limits. The listings' use cases, the read side's browse and the wire schemas
 * (schemas/listing.ts) all take them from here.
 */

export const LISTING_CATEGORIES = ["research", "writing", "coding", "analysis", "design", "data", "other"] as const;
export const LISTING_TYPES = ["FIXED", "BOUNTY"] as const;
export const LISTING_SORTS = ["newest", "cheapest", "popular"] as const;
export type ListingCategory = (typeof LISTING_CATEGORIES)[number];
export type ListingType = (typeof LISTING_TYPES)[number];
export type ListingSort = (typeof LISTING_SORTS)[number];

/** The starter filter: listings priced at or under $1. */
export const STARTER_MAX_WEI = 1_000_000n;
/** Words of a keyword search beyond this are ignored. */
export const KEYWORD_MAX_WORDS = 8;
