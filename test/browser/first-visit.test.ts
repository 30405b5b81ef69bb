/**
 * A first visit in a real Chromium, against `pnpm start` serving the web app: the home page says
 * what the marketplace is, shows the fee and the two ways in (an owner's and a developer's) on the
 * first screen of a desktop (1280×900) and of a phone (390×844), with no empty chart; the
 * marketplace on a phone shows a listing on its first screen and its filters behind one button;
 * cards show what the listing is, its rating (or "new"), its delivery time and the seller's success
 * rate; one seller's success rate is the same on every page; /docs leads back; no "FIXED" jargon.
 */
import { createMarketplaceClient, type MarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";

const { apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
/** A word only this file's listings have. */
const WORD = "wombat";
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const PROVEN_PRICE = "50000000000";
let browser: Browser;
let newcomer: { client: MarketplaceClient; id: string; listingId: string };
let proven: { client: MarketplaceClient; id: string; listingId: string };

/** A hosted agent registered through the SDK, with one service listed. */
async function sellerWithListing(name: string, title: string, priceWei = "1500000") {
  const client = createMarketplaceClient({ baseUrl: apiUrl });
  const { agent } = await client.registerAgent({ name, bio: "Sells to the first-visit test" });
  const listing = await client.createListing({
    agent_id: agent.id,
    title,
    description: `A ${WORD} report on any topic you name, written and checked, in plain words for people in a hurry.`,
    category: "writing",
    listing_type: "FIXED",
    price_wei: priceWei,
  });
  return { client, id: agent.id, listingId: listing.id };
}

beforeAll(async () => {
  browser = await launchBrowser();
  newcomer = await sellerWithListing("first-visit newcomer", `${WORD} report by a newcomer`);
  // Priced high, so that its seller is on the first page of the all-time board by earnings.
  proven = await sellerWithListing("first-visit proven", `${WORD} report by a proven seller`, PROVEN_PRICE);
  // One deal, released and rated: the proven seller's success rate and the listing's rating.
  const buyer = createMarketplaceClient({ baseUrl: apiUrl });
  const { agent } = await buyer.registerAgent({ name: "first-visit buyer" });
  await buyer.requestTestUsdc({ address: agent.wallet_address, usdc_wei: PROVEN_PRICE });
  const bought = await buyer.buyListing({ id: proven.listingId, expected_price_wei: PROVEN_PRICE });
  await proven.client.deliverWork({ id: bought.transaction_id, deliverable: "the report" });
  await buyer.releaseEscrow({ id: bought.transaction_id });
  await buyer.reviewTransaction({ id: bought.transaction_id, rating: 5, comment: "clear and on time" });
  // The cards' seller figures follow the escrow event notifier (NOTIFY_INTERVAL_MS).
  for (let tries = 0; ; tries++) {
    const { listings } = await api.browseListings({ keyword: `${WORD} proven` });
    if (listings[0]?.agent.rated_deals === 1) break;
    if (tries > 150) throw new Error("the card never showed the seller's rated deal");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(async () => {
  await browser?.close();
});

async function openAt(size: { width: number; height: number }) {
  const { context, page } = await freshPage(browser, apiUrl);
  await page.setViewportSize(size);
  return { context, page };
}

/** Whether the element lies wholly within the first screen of the page (not scrolled). */
async function onFirstScreen(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y + box.height <= height;
}

describe("a first visit", () => {
  for (const [name, size] of [
    ["1280", DESKTOP],
    ["390", PHONE],
  ] as const) {
    it(`home at ${name} px: what this is, the fee and the two starts on the first screen, no empty chart`, async () => {
      const { page, context } = await openAt(size);
      await page.goto("/");
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Agent Marketplace");
      const main = page.locator("main");
      await expect.poll(() => main.textContent()).toMatch(/AI agents sell services and post bounties/);
      await expect.poll(() => main.textContent()).toMatch(/escrow/i);

      // The fee, as the contract has it (GET /api/info), in words.
      const info = await api.getInfo();
      const feeBps = info.for_agents.chain.fee_bps;
      expect(feeBps).not.toBeNull();
      const fee = `${Number(((feeBps ?? 0) / 100).toFixed(2))} %`;
      await expect.poll(() => page.getByTestId("platform-fee").textContent()).toContain(fee);
      expect(await onFirstScreen(page, page.getByTestId("platform-fee"))).toBe(true);

      // The two starts.
      const owner = page.getByRole("link", { name: "Sign in and create an agent" });
      const developer = page.getByRole("link", { name: "Read skill.md" });
      expect(await owner.getAttribute("href")).toBe("/owner");
      expect(await developer.getAttribute("href")).toBe("/skill.md");
      expect(await page.getByRole("link", { name: "API reference" }).first().getAttribute("href")).toBe("/docs");
      await expect.poll(() => main.textContent()).toContain("/mcp");
      expect(await onFirstScreen(page, owner), "the owner's start on the first screen").toBe(true);
      expect(await onFirstScreen(page, developer), "the developer's start on the first screen").toBe(true);

      // How the escrow protects both sides, with this deployment's terms.
      const escrow = page.getByRole("region", { name: "How the escrow protects both sides" });
      await expect.poll(() => escrow.textContent()).toMatch(/held by the contract/);
      await expect.poll(() => escrow.textContent()).toMatch(/arbiter/);
      await expect.poll(() => escrow.textContent()).toMatch(/gets all of it back/);

      // The 30-day chart: none while the 30 days are empty; otherwise below the first screen.
      await expect.poll(() => page.locator("main [aria-busy=true]").count()).toBe(0);
      const daily = await api.getDailyStats({ days: 30 });
      const anything = daily.days.some((day) => day.transactions > 0 || BigInt(day.volume_wei) > 0n);
      const chart = page.locator("figure.daily-chart");
      if (anything) {
        await expect.poll(() => chart.count()).toBe(1);
        const box = await chart.boundingBox();
        expect(box?.y ?? 0, "the chart starts below the first screen").toBeGreaterThanOrEqual(size.height);
      } else {
        expect(await chart.count()).toBe(0);
      }
      await checkPage(page, `first-visit-home-${name}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      expect(problemsOf(page)).toEqual([]);
      await context.close();
    });
  }

  it("hides the 30-day chart when every day is empty", async () => {
    const { page, context } = await openAt(DESKTOP);
    // The same page, answered 30 empty days.
    await page.route("**/api/stats/daily**", async (route) => {
      const real = await (await route.fetch()).json();
      const days = real.days.map((day: { date: string }) => ({ date: day.date, volume_wei: "0", transactions: 0 }));
      await route.fulfill({ json: { ...real, days } });
    });
    await page.goto("/");
    await expect.poll(() => page.getByRole("heading", { name: "The marketplace now" }).count()).toBe(1);
    await expect.poll(() => page.locator("main [aria-busy=true]").count()).toBe(0);
    expect(await page.locator("figure.daily-chart").count()).toBe(0);
    expect(await page.getByRole("heading", { name: "The last 30 days" }).count()).toBe(0);
    // A daily request still in the route when the context closes must not fail after the test.
    await page.unrouteAll({ behavior: "ignoreErrors" });
    await context.close();
  });

  it("the marketplace on a phone: a listing on the first screen, the filters behind one button", async () => {
    const { page, context } = await openAt(PHONE);
    await page.goto("/marketplace");
    const firstCard = page.getByTestId("listing-card").first();
    await expect.poll(() => firstCard.count()).toBe(1);
    expect(await onFirstScreen(page, firstCard), "a whole listing card on the first screen").toBe(true);

    const filters = page.getByRole("button", { name: /^Filters/ });
    expect(await filters.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByLabel("Keyword").isVisible(), "the filters wait behind the button").toBe(false);
    await checkPage(page, "first-visit-marketplace-390");
    await filters.click();
    expect(await filters.getAttribute("aria-expanded")).toBe("true");
    await page.getByLabel("Keyword").fill(WORD);
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe(WORD);
    await expect
      .poll(() => page.getByTestId("listing-card").locator("h3").allTextContents())
      .toEqual([`${WORD} report by a proven seller`, `${WORD} report by a newcomer`]);
    await checkPage(page, "first-visit-marketplace-390-filters");
    // The button tells how many filters are on.
    await page.getByRole("button", { name: "Filters (1)" }).click();
    expect(await page.getByLabel("Keyword").isVisible()).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("cards say what the listing is, its rating or that it is new, its delivery time and the seller's record", async () => {
    const { page, context } = await openAt(DESKTOP);
    await page.goto(`/marketplace?q=${WORD}`);
    const card = (title: string) => page.getByTestId("listing-card").filter({ hasText: title });
    const fresh = card(`${WORD} report by a newcomer`);
    const rated = card(`${WORD} report by a proven seller`);
    await expect.poll(() => fresh.count()).toBe(1);
    for (const each of [fresh, rated]) {
      expect(await each.getByTestId("listing-description").textContent()).toMatch(/report on any topic you name/);
      expect(await each.getByTestId("listing-delivery").textContent()).toBe("Delivery in 3 days");
      expect(await each.locator(".badge").first().textContent()).toBe("Service");
    }
    expect(await fresh.getByTestId("listing-rating").textContent()).toBe("New: no ratings yet");
    expect(await fresh.getByTestId("seller-success").textContent()).toBe("No rated deals yet");
    await expect.poll(() => rated.getByTestId("listing-rating").textContent()).toBe("Rated 5.00 / 5 (1 rating)");
    expect(await rated.getByTestId("seller-success").textContent()).toBe("100 % success over 1 deal");
    // The tier says what it means.
    expect(await fresh.locator("mark.tier").getAttribute("title")).toBe("Newcomer: no tier reached yet");
    await expect
      .poll(() => rated.locator("mark.tier").getAttribute("title"))
      .toBe("Reliable: at least 1 completed deal and a 75 % success rate");
    // Plain words: no FIXED / BOUNTY on the page, on either tab.
    expect(await page.locator("body").textContent()).not.toMatch(/FIXED|BOUNTY/);
    await page.getByRole("button", { name: "Bounties" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("type")).toBe("BOUNTY");
    await expect.poll(() => page.locator("main [aria-busy=true]").count()).toBe(0);
    expect(await page.locator("body").textContent()).not.toMatch(/FIXED|BOUNTY/);
    await checkPage(page, "first-visit-marketplace-1280");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("one seller's success rate is the same on every page; with no rated deal it is —", async () => {
    const { page, context } = await openAt(DESKTOP);
    // The agent page of each: the proven seller 100 %, the newcomer none.
    await page.goto(`/agents/${proven.id}`);
    await expect.poll(() => page.getByTestId("success-rate").textContent()).toBe("100 %");
    expect(await page.getByTestId("deal-count").textContent()).toBe("1");
    await page.getByText("What tiers and success rates mean").click();
    await expect
      .poll(() => page.locator(".tier-guide").textContent())
      .toMatch(/Reliable: at least 1 completed deal and a 75 % success rate/);
    await checkPage(page, "first-visit-agent");
    await page.goto(`/agents/${newcomer.id}`);
    await expect.poll(() => page.getByTestId("success-rate").textContent()).toBe("—");
    expect(await page.getByTestId("deal-count").textContent()).toBe("0");

    // The listing page's seller box.
    await page.goto(`/listings/${proven.listingId}`);
    await expect.poll(() => page.getByTestId("success-rate").textContent()).toBe("100 %");
    await expect.poll(() => page.locator("main").textContent()).toMatch(/Delivery within 3 days/);
    await page.goto(`/listings/${newcomer.listingId}`);
    await expect.poll(() => page.getByTestId("success-rate").textContent()).toBe("—");
    await checkPage(page, "first-visit-listing");

    // The all-time leaderboard: the proven seller's row, the newcomer not on it.
    await page.goto("/leaderboard?period=all&sort=earned");
    const row = page.getByTestId("leaderboard-row").filter({ hasText: "first-visit proven" });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator("td").last().textContent()).toBe("100 %");
    expect(await page.getByTestId("leaderboard-row").filter({ hasText: "first-visit newcomer" }).count()).toBe(0);
    await checkPage(page, "first-visit-leaderboard");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("/docs leads back to the marketplace and starts with a guide", async () => {
    const { page, context } = await openAt(DESKTOP);
    await page.goto("/docs");
    const back = page.getByRole("link", { name: "← Back to the marketplace" }).first();
    await expect.poll(() => back.count()).toBe(1);
    expect(await back.getAttribute("href")).toBe("/");
    expect(
      await page
        .getByRole("link", { name: /skill\.md/ })
        .first()
        .getAttribute("href"),
    ).toBe("/skill.md");
    await expect.poll(() => page.getByText("One deal, start to end").count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await back.click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Agent Marketplace");
    await context.close();
  });
});
