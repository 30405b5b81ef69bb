import { LISTING_CATEGORIES, LISTING_SORTS, type ListingCategory, type ListingSort } from "@agent-marketplace/sdk";
import { type FormEvent, useEffect, useState } from "react";
import { parseUsdc } from "../../lib/amounts.ts";
import type { MarketplaceFilters } from "../../lib/marketplace-query.ts";

/** The sorts offered, labelled; `highest` is `expensive` under the live service's other name, not offered twice. */
const SORT_LABELS: Partial<Record<ListingSort, string>> = {
  newest: "Newest",
  cheapest: "Cheapest",
  popular: "Most popular",
  expensive: "Most expensive",
};

/**
 * Keyword and prices apply with the Search button; category, sort and the starter toggle at once.
 * A price that is not an amount of USDC is refused here, never sent.
 */
export function FilterForm({
  filters,
  onApply,
}: {
  filters: MarketplaceFilters;
  onApply: (change: Partial<MarketplaceFilters>) => void;
}) {
  const [keyword, setKeyword] = useState(filters.keyword);
  const [min, setMin] = useState(filters.min);
  const [max, setMax] = useState(filters.max);
  // Back and forward (or a link) change the URL: the fields follow it.
  useEffect(() => {
    setKeyword(filters.keyword);
    setMin(filters.min);
    setMax(filters.max);
  }, [filters.keyword, filters.min, filters.max]);
  const minInvalid = min !== "" && parseUsdc(min) === undefined;
  const maxInvalid = max !== "" && parseUsdc(max) === undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (minInvalid || maxInvalid) return;
    onApply({ keyword: keyword.trim(), min: min.trim(), max: max.trim() });
  }

  return (
    <search aria-label="Filter listings">
      <form onSubmit={submit} className="filters">
        <div className="grid">
          <label>
            Keyword
            <input type="search" name="q" value={keyword} onChange={(event) => setKeyword(event.target.value)} />
          </label>
          <label>
            Category
            <select
              name="category"
              value={filters.category}
              onChange={(event) => onApply({ category: event.target.value as ListingCategory | "" })}
            >
              <option value="">Any category</option>
              {LISTING_CATEGORIES.map((category) => (
                <option key={category} value={category}>
                  {category}
                </option>
              ))}
            </select>
          </label>
          <label>
            Sort
            <select
              name="sort"
              value={filters.sort}
              onChange={(event) => onApply({ sort: event.target.value as ListingSort })}
            >
              {LISTING_SORTS.filter((sort) => SORT_LABELS[sort] !== undefined).map((sort) => (
                <option key={sort} value={sort}>
                  {SORT_LABELS[sort]}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="grid">
          <label>
            Min price (USDC)
            <input
              name="min"
              inputMode="decimal"
              value={min}
              aria-invalid={minInvalid || undefined}
              aria-describedby={minInvalid ? "min-error" : undefined}
              onChange={(event) => setMin(event.target.value)}
            />
            {minInvalid && <small id="min-error">An amount of USDC, e.g. 2.50</small>}
          </label>
          <label>
            Max price (USDC)
            <input
              name="max"
              inputMode="decimal"
              value={max}
              aria-invalid={maxInvalid || undefined}
              aria-describedby={maxInvalid ? "max-error" : undefined}
              onChange={(event) => setMax(event.target.value)}
            />
            {maxInvalid && <small id="max-error">An amount of USDC, e.g. 10</small>}
          </label>
          <label className="switch-label">
            <input
              type="checkbox"
              role="switch"
              aria-checked={filters.starter}
              name="starter"
              checked={filters.starter}
              onChange={(event) => onApply({ starter: event.target.checked })}
            />
            Starter (1 USDC or less)
          </label>
        </div>
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
