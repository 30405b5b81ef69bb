import { describe, expect, test } from "vitest";
import {
  activeFilterCount,
  browseQueryOf,
  filtersFromSearch,
  nextPage,
  previousPage,
  searchOfFilters,
  withFilter,
} from "./marketplace-query.ts";

describe("the marketplace's filters in the URL", () => {
  test("the plain page has a plain URL and the defaults", () => {
    const filters = filtersFromSearch("");
    expect(filters, "defaults").toEqual({
      type: "FIXED",
      keyword: "",
      category: "",
      min: "",
      max: "",
      starter: false,
      sort: "newest",
      cursor: "",
      back: [],
    });
    expect(searchOfFilters(filters), "no query").toBe("");
  });
  test("every filter survives a round trip through the URL", () => {
    const search =
      "type=BOUNTY&q=audit+solidity&category=coding&min=1.5&max=20&starter=true&sort=cheapest&cursor=c3&back=c2";
    const filters = filtersFromSearch(search);
    expect(filtersFromSearch(searchOfFilters(filters)), "round trip").toEqual(filters);
    expect(filters.keyword, "keyword").toBe("audit solidity");
  });
  test("unknown values fall back to the defaults", () => {
    const filters = filtersFromSearch("type=OTHER&category=cooking&sort=random");
    expect([filters.type, filters.category, filters.sort], "defaults").toEqual(["FIXED", "", "newest"]);
  });
  test("prices typed in USDC are sent in wei; a price that does not parse is not sent", () => {
    const query = browseQueryOf(filtersFromSearch("min=1.5&max=abc&starter=true&q=%20x%20"), 20);
    expect(query, "browse query").toEqual({
      listing_type: "FIXED",
      sort: "newest",
      limit: 20,
      keyword: "x",
      min_price: "1500000",
      starter: "true",
    });
  });
});

describe("cursor paging", () => {
  test("next and previous walk the pages back to the first", () => {
    const first = filtersFromSearch("type=BOUNTY");
    const second = nextPage(first, "c2");
    const third = nextPage(second, "c3");
    expect([second.cursor, second.back], "page 2").toEqual(["c2", []]);
    expect([third.cursor, third.back], "page 3").toEqual(["c3", ["c2"]]);
    const backToSecond = previousPage(filtersFromSearch(searchOfFilters(third)));
    expect([backToSecond.cursor, backToSecond.back], "back to page 2").toEqual(["c2", []]);
    expect(previousPage(backToSecond).cursor, "back to page 1").toBe("");
    expect(previousPage(backToSecond).type, "filters kept").toBe("BOUNTY");
  });
  test("a new filter starts again at the first page", () => {
    const third = nextPage(nextPage(filtersFromSearch(""), "c2"), "c3");
    const changed = withFilter(third, { category: "data" });
    expect([changed.cursor, changed.back, changed.category], "first page").toEqual(["", [], "data"]);
  });
});

describe("the Filters button's count", () => {
  test("counts each filter that differs from the plain page, the type and page not", () => {
    expect(activeFilterCount(filtersFromSearch(""))).toBe(0);
    expect(activeFilterCount(filtersFromSearch("type=BOUNTY"))).toBe(0);
    expect(activeFilterCount(filtersFromSearch("q=data&category=coding&min=1&max=5&starter=true&sort=cheapest"))).toBe(
      6,
    );
    expect(activeFilterCount(filtersFromSearch("sort=newest&category=design"))).toBe(1);
  });
});
