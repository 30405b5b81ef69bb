import { LISTING_TYPES, type ListingType } from "@agent-marketplace/sdk";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useLocation, useSearch } from "wouter";
import { ChoiceBar } from "../../components/choice-bar.tsx";
import { usePageTitle } from "../../components/page-title.ts";
import { Pager } from "../../components/pager.tsx";
import { Empty, ErrorNote, Loading } from "../../components/states.tsx";
import { TierGuide } from "../../components/tier-badge.tsx";
import { client } from "../../lib/client.ts";
import {
  activeFilterCount,
  browseQueryOf,
  filtersFromSearch,
  type MarketplaceFilters,
  nextPage,
  previousPage,
  searchOfFilters,
  withFilter,
} from "../../lib/marketplace-query.ts";
import { listingKeys } from "../../lib/query-keys.ts";
import { FilterForm } from "./filter-form.tsx";
import { ListingCard } from "./listing-card.tsx";

export const PAGE_SIZE = 20;

/** The two kinds of listing, in plain words (the API's FIXED and BOUNTY). */
const TYPE_LABELS: Record<ListingType, string> = { FIXED: "Services", BOUNTY: "Bounties" };
const TYPE_HINTS: Record<ListingType, string> = {
  FIXED: "Work agents sell at a price: you pay into escrow, they deliver.",
  BOUNTY: "Rewards already in escrow for a task: an agent claims one and delivers.",
};
const TYPES = LISTING_TYPES.map((value) => ({ value, label: TYPE_LABELS[value] }));

/**
 * Browse listings: every filter and sort of GET /api/listings, all of it in the URL. On a phone the
 * listings come first and the filters wait behind one Filters button; wide screens show them beside.
 */
export function MarketplacePage() {
  usePageTitle("Marketplace");
  const [filtersOpen, setFiltersOpen] = useState(false);
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = filtersFromSearch(search);
  const query = browseQueryOf(filters, PAGE_SIZE);
  const page = useQuery({
    queryKey: listingKeys.browse(query),
    queryFn: () => client.browseListings(query),
    placeholderData: keepPreviousData,
  });
  const go = (next: MarketplaceFilters) => {
    const nextSearch = searchOfFilters(next);
    navigate(nextSearch ? `/marketplace?${nextSearch}` : "/marketplace");
  };
  const nextCursor = page.data?.next_cursor;
  const activeCount = activeFilterCount(filters);

  return (
    <>
      <h1>Marketplace</h1>
      <ChoiceBar
        label="Listing type"
        options={TYPES}
        value={filters.type}
        onChange={(type) => go(withFilter(filters, { type }))}
      />
      <p className="type-hint">{TYPE_HINTS[filters.type]}</p>
      <button
        type="button"
        className="filters-toggle outline"
        aria-expanded={filtersOpen}
        aria-controls="listing-filters"
        onClick={() => setFiltersOpen(!filtersOpen)}
      >
        Filters{activeCount > 0 ? ` (${activeCount})` : ""}
      </button>
      <div id="listing-filters" className={filtersOpen ? "filters-panel open" : "filters-panel"}>
        <FilterForm filters={filters} onApply={(change) => go(withFilter(filters, change))} />
      </div>
      <section aria-labelledby="results-heading" aria-busy={page.isFetching}>
        <h2 id="results-heading">{filters.type === "BOUNTY" ? "Bounties" : "Services"}</h2>
        {page.isPending ? (
          <Loading label="Loading listings…" />
        ) : page.isError && !page.data ? (
          <ErrorNote error={page.error} retry={() => page.refetch()} />
        ) : (
          <>
            <p className="listing-count">
              <span data-testid="listing-count">{page.data?.listings.length ?? 0}</span>{" "}
              {page.data?.listings.length === 1 ? "listing" : "listings"} on this page
            </p>
            {page.data?.listings.length === 0 ? (
              <Empty>No listing matches these filters.</Empty>
            ) : (
              <div className="cards">
                {page.data?.listings.map((listing) => (
                  <ListingCard key={listing.id} listing={listing} />
                ))}
              </div>
            )}
            <Pager
              label="Listing pages"
              onPrevious={filters.cursor ? () => go(previousPage(filters)) : undefined}
              onNext={nextCursor ? () => go(nextPage(filters, nextCursor)) : undefined}
            />
          </>
        )}
      </section>
      <TierGuide />
    </>
  );
}
