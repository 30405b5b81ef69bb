/**
 * A visitor in a real Chromium, against `pnpm start` serving the web app: the public pages (home,
 * marketplace, listing, agent directory and profile, leaderboard, a missing page), what they show
 * checked against the API's own answers for the same query, each page checked with axe-core and
 * photographed at 1280 and 375 px.
 */
import { createMarketplaceClient, type MarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkPage, freshPage, launchBrowser, problemsOf, screenshot } from "./browser.ts";

const { apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
/** A word only this file's listings have in their titles. */
const WORD = "quokka";
const CATEGORIES = ["research", "writing", "coding", "analysis", "design", "data", "other"] as const;
let browser: Browser;
let sellerId: string;

beforeAll(async () => {
  browser = await launchBrowser();
  // 45 services by 3 sellers (three pages of the keyword search at 20 a page), and 2 bounties.
  const sellers: { client: MarketplaceClient; id: string; wallet: string }[] = [];
  for (let s = 0; s < 3; s++) {
    const seller = createMarketplaceClient({ baseUrl: apiUrl });
    const { agent } = await seller.registerAgent({ name: `visitor-seller-${s}`, bio: "Sells to the visitor test" });
    sellers.push({ client: seller, id: agent.id, wallet: agent.wallet_address });
  }
  sellerId = sellers[0]?.id as string;
  for (let i = 0; i < 45; i++) {
    const seller = sellers[i % 3] as (typeof sellers)[number];
    await seller.client.createListing({
      agent_id: seller.id,
      title: `${WORD} service ${String(i).padStart(2, "0")}`,
      description: `A ${WORD} job for the browser test, number ${i}`,
      category: CATEGORIES[i % CATEGORIES.length],
      listing_type: "FIXED",
      price_wei: String((i % 9) * 750_000 + 500_000),
    });
  }
  const poster = sellers[0] as (typeof sellers)[number];
  await poster.client.requestTestUsdc({ address: poster.wallet, usdc_wei: "20000000" });
  for (const title of [`${WORD} bounty A`, `${WORD} bounty B`]) {
    await poster.client.createListing({
      agent_id: poster.id,
      title,
      description: "Wanted, for the visitor test",
      category: "data",
      listing_type: "BOUNTY",
      price_wei: "2000000",
    });
  }
});

afterAll(async () => {
  await browser?.close();
});

/** The titles of the cards on the page, in order. */
const cardTitles = (page: Page) => page.getByTestId("listing-card").locator("h3").allTextContents();

async function expectListingsLike(page: Page, query: Parameters<MarketplaceClient["browseListings"]>[0]) {
  const expected = await api.browseListings({ limit: 20, ...query });
  await expect
    .poll(() => cardTitles(page), { timeout: 10_000 })
    .toEqual(expected.listings.map((listing) => listing.title));
  await expect.poll(() => page.getByTestId("listing-count").textContent()).toBe(String(expected.listings.length));
  return expected;
}

describe("a visitor", () => {
  it("sees the home page: stats as the API counts them, the 30-day chart (once there is data) and the live feed", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    const sessionAsks: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/auth/session") sessionAsks.push(request.url());
    });
    await page.goto("/");
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBeTruthy();
    const stats = await api.getStats();
    await expect.poll(() => page.locator("main").textContent()).toContain(String(stats.active_agents));
    // The chart's bars, and the table beside it for screen readers: one row a day, the API's counts
    // (no chart at all while the 30 days are empty: first-visit.test.ts).
    const daily = await api.getDailyStats({ days: 30 });
    if (daily.days.some((day) => day.transactions > 0 || BigInt(day.volume_wei) > 0n)) {
      await expect.poll(() => page.locator("figure.daily-chart svg rect").count()).toBe(60);
      await expect
        .poll(() => page.locator("figure.daily-chart tbody td:last-child").allTextContents())
        .toEqual(daily.days.map((day) => String(day.transactions)));
    } else {
      await expect.poll(() => page.locator("main [aria-busy=true]").count()).toBe(0);
      expect(await page.locator("figure.daily-chart").count()).toBe(0);
    }
    await expect.poll(() => page.getByRole("heading", { name: /feed/i }).count()).toBeGreaterThan(0);
    await checkPage(page, "home");
    expect(sessionAsks, "a visitor who never signed in is not asked for a session (no 401 per page)").toEqual([]);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("reads every public page on a 375 px wide phone without sideways scrolling", async () => {
    const { listings } = await api.browseListings({ keyword: WORD, limit: 1 });
    const pages = {
      home: "/",
      marketplace: `/marketplace?q=${WORD}`,
      listing: `/listings/${listings[0]?.id}`,
      agents: "/agents",
      agent: `/agents/${sellerId}`,
      leaderboard: "/leaderboard",
    };
    const { page, context } = await freshPage(browser, apiUrl, { mobile: true });
    for (const [name, url] of Object.entries(pages)) {
      await page.goto(url);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).count()).toBe(1);
      await expect.poll(() => page.locator("main [aria-busy=true]").count()).toBe(0);
      await checkPage(page, `${name}-375`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(375);
    }
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("browses, filters, searches and pages the marketplace; every page matches the API", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    await page.goto("/marketplace");
    await expectListingsLike(page, { listing_type: "FIXED" });
    await checkPage(page, "marketplace");

    // Keyword search: three pages forward, then back.
    await page.getByLabel("Keyword").fill(WORD);
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(WORD);
    const first = await expectListingsLike(page, { listing_type: "FIXED", keyword: WORD });
    expect(first.listings).toHaveLength(20);
    await page.getByRole("button", { name: "Next page" }).click();
    const second = await expectListingsLike(page, {
      listing_type: "FIXED",
      keyword: WORD,
      cursor: first.next_cursor ?? undefined,
    });
    await page.getByRole("button", { name: "Next page" }).click();
    const third = await expectListingsLike(page, {
      listing_type: "FIXED",
      keyword: WORD,
      cursor: second.next_cursor ?? undefined,
    });
    expect(third.listings).toHaveLength(5);
    expect(third.next_cursor).toBeNull();
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous page" }).click();
    await page.getByRole("button", { name: "Previous page" }).click();
    await expectListingsLike(page, { listing_type: "FIXED", keyword: WORD });

    // Each filter and sort, on the keyword's listings.
    await page.getByLabel("Category").selectOption("coding");
    await expectListingsLike(page, { listing_type: "FIXED", keyword: WORD, category: "coding" });
    await page.getByLabel("Category").selectOption("");
    await page.getByLabel("Sort").selectOption("cheapest");
    await expectListingsLike(page, { listing_type: "FIXED", keyword: WORD, sort: "cheapest" });
    await page.getByLabel("Min price (USDC)").fill("2");
    await page.getByLabel("Max price (USDC)").fill("5.75");
    await page.getByRole("button", { name: "Search" }).click();
    await expectListingsLike(page, {
      listing_type: "FIXED",
      keyword: WORD,
      sort: "cheapest",
      min_price: "2000000",
      max_price: "5750000",
    });
    await page.getByLabel("Min price (USDC)").fill("");
    await page.getByLabel("Max price (USDC)").fill("");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("switch", { name: /Starter/ }).check();
    await expectListingsLike(page, { listing_type: "FIXED", keyword: WORD, sort: "cheapest", starter: "true" });

    await page.getByRole("switch", { name: /Starter/ }).uncheck();

    // The bounties' tab.
    await page.getByRole("button", { name: /Bounties/ }).click();
    const bounties = await expectListingsLike(page, { listing_type: "BOUNTY", keyword: WORD, sort: "cheapest" });
    expect(bounties.listings.map((listing) => listing.title).sort()).toEqual([`${WORD} bounty A`, `${WORD} bounty B`]);

    // A link reproduces the view.
    const { page: again } = await freshPage(browser, apiUrl);
    await again.goto(page.url());
    await expectListingsLike(again, { listing_type: "BOUNTY", keyword: WORD, sort: "cheapest" });
    expect(problemsOf(page)).toEqual([]);
    await context.close();
    await again.context().close();
  });

  it("opens a listing, its seller's profile with the reputation verified on chain, the directory and the leaderboard", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    await page.goto(`/marketplace?q=${WORD}`);
    await page.getByTestId("listing-card").first().getByRole("link").first().click();
    await expect.poll(() => page.locator("main").textContent()).toMatch(new RegExp(`${WORD} service`));
    await expect.poll(() => page.locator("main").textContent()).toMatch(/visitor-seller-\d/);
    await checkPage(page, "listing");

    await page.goto(`/agents/${sellerId}`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("visitor-seller-0");
    await page.getByRole("button", { name: /Verify on chain/i }).click();
    await expect.poll(() => page.locator("main").textContent()).toMatch(/match/i);
    await checkPage(page, "agent");

    await page.goto("/agents");
    await expect.poll(() => page.locator("main").getByRole("link", { name: "visitor-seller-1" }).count()).toBe(1);
    await checkPage(page, "agents");

    await page.goto("/leaderboard");
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toMatch(/Leaderboard/i);
    for (const period of [/week/i, /all time/i, /month/i]) {
      await page.getByRole("button", { name: period }).click();
      await expect.poll(() => page.locator("main [aria-busy=true]").count()).toBe(0);
    }
    await checkPage(page, "leaderboard");

    // A real 404: the status says so, and the app says it in words.
    expect((await page.goto("/no/such/page"))?.status()).toBe(404);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toMatch(/not found/i);
    await checkPage(page, "not-found");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("reads the interactive API reference at /docs, served without a CDN", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    const outside: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(apiUrl) && !request.url().startsWith("data:")) outside.push(request.url());
    });
    await page.goto("/docs");
    await expect.poll(() => page.getByText("Register an agent").count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await screenshot(page, "docs");
    expect(outside).toEqual([]);
    await context.close();
  });
});
