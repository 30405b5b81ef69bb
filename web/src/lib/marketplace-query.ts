import {
  LISTING_CATEGORIES,
  LISTING_SORTS,
  type ListingCategory,
  type ListingSort,
  type ListingType,
} from "@agent-marketplace/sdk";
import { parseUsdc } from "./amounts.ts";
import { backward, type CursorPosition, forward, positionOf, writePosition } from "./cursor-stack.ts";

/*
 * The marketplace's filters live in the URL query, so a link reproduces what someone sees. Prices
 * are typed in USDC (in the URL too, readable) and sent to the API in wei.
 */

export interface MarketplaceFilters extends CursorPosition {
  type: ListingType;
  keyword: string;
  category: ListingCategory | "";
  /** USDC, as typed. */
  min: string;
  max: string;
  starter: boolean;
  sort: ListingSort;
}

const oneOf = <T extends string>(values: readonly T[], value: string | null, fallback: T): T =>
  values.includes(value as T) ? (value as T) : fallback;

export function filtersFromSearch(search: string): MarketplaceFilters {
  const query = new URLSearchParams(search);
  return {
    type: query.get("type") === "BOUNTY" ? "BOUNTY" : "FIXED",
    keyword: query.get("q") ?? "",
    category: oneOf<ListingCategory | "">(LISTING_CATEGORIES, query.get("category"), ""),
    min: query.get("min") ?? "",
    max: query.get("max") ?? "",
    starter: query.get("starter") === "true",
    sort: oneOf(LISTING_SORTS, query.get("sort"), "newest"),
    ...positionOf(query),
  };
}

/** The URL query of `filters`: defaults left out, so the plain page is plain /marketplace. */
export function searchOfFilters(filters: MarketplaceFilters): string {
  const query = new URLSearchParams();
  if (filters.type !== "FIXED") query.set("type", filters.type);
  if (filters.keyword) query.set("q", filters.keyword);
  if (filters.category) query.set("category", filters.category);
  if (filters.min) query.set("min", filters.min);
  if (filters.max) query.set("max", filters.max);
  if (filters.starter) query.set("starter", "true");
  if (filters.sort !== "newest") query.set("sort", filters.sort);
  writePosition(query, filters);
  return query.toString();
}

export interface BrowseQuery {
  listing_type: ListingType;
  keyword?: string;
  category?: ListingCategory;
  min_price?: string;
  max_price?: string;
  starter?: "true";
  sort: ListingSort;
  limit: number;
  cursor?: string;
}

/** What GET /api/listings is asked; a price that does not parse is left out (the form says so). */
export function browseQueryOf(filters: MarketplaceFilters, limit: number): BrowseQuery {
  const min = filters.min ? parseUsdc(filters.min) : undefined;
  const max = filters.max ? parseUsdc(filters.max) : undefined;
  return {
    listing_type: filters.type,
    sort: filters.sort,
    limit,
    ...(filters.keyword.trim() && { keyword: filters.keyword.trim() }),
    ...(filters.category && { category: filters.category }),
    ...(min !== undefined && { min_price: min }),
    ...(max !== undefined && { max_price: max }),
    ...(filters.starter && { starter: "true" as const }),
    ...(filters.cursor && { cursor: filters.cursor }),
  };
}

/** The filters of the next page: the current cursor joins the stack. */
export function nextPage(filters: MarketplaceFilters, nextCursor: string): MarketplaceFilters {
  return { ...filters, ...forward(filters, nextCursor) };
}

/** The filters of the previous page: the last cursor of the stack. */
export function previousPage(filters: MarketplaceFilters): MarketplaceFilters {
  return { ...filters, ...backward(filters) };
}

/** A new search starts at the first page. */
export function withFilter(filters: MarketplaceFilters, change: Partial<MarketplaceFilters>): MarketplaceFilters {
  return { ...filters, ...change, cursor: "", back: [] };
}

/** How many filters differ from the plain page's (keyword, category, prices, starter, sort): the Filters button says it. */
export function activeFilterCount(filters: MarketplaceFilters): number {
  return [
    filters.keyword !== "",
    filters.category !== "",
    filters.min !== "",
    filters.max !== "",
    filters.starter,
    filters.sort !== "newest",
  ].filter(Boolean).length;
}
