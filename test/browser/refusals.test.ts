/**
 * Refusals a person meets in the browser, each shown as a clear message: a buy the agent cannot pay
 * for (402, with the shortfall), a price the seller changed after the page showed it (409), a wallet on the wrong network (switched from the page), and a
 * session that expired while the page was open.
 */
import { createMarketplaceClient } from "@agent-marketplace/sdk";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";
import { signInWithBrowserWallet } from "./people.ts";

const { env, apiUrl } = inject("sharedStack");
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("refusals in the browser", () => {
  it("a buy the agent cannot pay for says how much is missing", async () => {
    const seller = createMarketplaceClient({ baseUrl: apiUrl });
    const { agent } = await seller.registerAgent({ name: "pricey-seller" });
    const listing = await seller.createListing({
      agent_id: agent.id,
      title: "An expensive audit",
      description: "Costs more than a new agent has",
      category: "coding",
      listing_type: "FIXED",
      price_wei: "25000000",
    });
    const { page, context } = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(17) },
    });
    await page.goto("/owner");
    await signInWithBrowserWallet(page);
    const create = page.getByRole("region", { name: "Create a hosted agent" });
    await create.getByLabel("Name").fill("empty-wallet");
    await create.getByRole("button", { name: "Create hosted agent" }).click();
    const key = (await page.getByTestId("new-api-key").textContent({ timeout: 20_000 })) ?? "";
    const buyer = await createMarketplaceClient({ baseUrl: apiUrl, apiKey: key }).getMe();
    await page.goto(`/listings/${listing.id}`);
    await page.getByLabel("Your agent").selectOption(buyer.id);
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    // The review already says the balance is short; the API refuses the confirmed move.
    const sheet = page.getByRole("dialog", { name: 'Buy "An expensive audit"' });
    await expect.poll(() => sheet.textContent(), { timeout: 20_000 }).toContain("Not enough: short by 25.00 USDC");
    await sheet.getByRole("button", { name: "Confirm: buy for 25.00 USDC" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Insufficient balance" });
    await expect.poll(() => alert.count(), { timeout: 20_000 }).toBe(1);
    expect(await alert.textContent()).toMatch(/25\.00 USDC/);
    await checkPage(page, "refusal-insufficient-balance");
    expect(
      (await createMarketplaceClient({ baseUrl: apiUrl }).getListing({ id: listing.id })).times_purchased ?? 0,
    ).toBe(0);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("a price the seller changed after the page showed it is not charged: the person is told, and sees the new one", async () => {
    const seller = createMarketplaceClient({ baseUrl: apiUrl });
    const { agent, api_key } = await seller.registerAgent({ name: "repricing-seller" });
    const listing = await seller.createListing({
      agent_id: agent.id,
      title: "A repriced review",
      description: "Its price goes up while the buyer looks",
      category: "coding",
      listing_type: "FIXED",
      price_wei: "1000000",
    });
    const { page, context } = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(17) },
    });
    await page.goto("/owner");
    await signInWithBrowserWallet(page);
    const create = page.getByRole("region", { name: "Create a hosted agent" });
    await create.getByLabel("Name").fill("careful-buyer");
    await create.getByRole("button", { name: "Create hosted agent" }).click();
    const key = (await page.getByTestId("new-api-key").textContent({ timeout: 20_000 })) ?? "";
    const buyer = await createMarketplaceClient({ baseUrl: apiUrl, apiKey: key }).getMe();
    await page.goto(`/listings/${listing.id}`);
    await expect.poll(() => page.getByText("1.00 USDC").count(), { timeout: 20_000 }).toBeGreaterThan(0);
    // The page shows 1.00 USDC; the seller raises the price before the person clicks.
    await createMarketplaceClient({ baseUrl: apiUrl, apiKey: api_key }).updateListing({
      id: listing.id,
      price_wei: "50000000",
    });
    await page.getByLabel("Your agent").selectOption(buyer.id);
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    await page.getByRole("button", { name: "Confirm: buy for 1.00 USDC" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "price changed" });
    await expect.poll(() => alert.count(), { timeout: 20_000 }).toBe(1);
    expect(await alert.textContent()).toContain("The price changed to 50.00 USDC: review again.");
    // The page reads the listing again: the new price is what it shows now, in the review too.
    // (The alert names 50.00 USDC at once; the sheet's figures follow when the listing is read again.)
    await expect
      .poll(() => page.getByRole("button", { name: "Confirm: buy for 50.00 USDC" }).count(), { timeout: 20_000 })
      .toBe(1);
    await checkPage(page, "refusal-price-changed");
    expect(
      (await createMarketplaceClient({ baseUrl: apiUrl }).getListing({ id: listing.id })).times_purchased ?? 0,
    ).toBe(0);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("a wallet on another network is told so, and signs in once switched", async () => {
    const { page, context } = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(18), chainId: 1 },
    });
    await page.goto("/");
    await page.getByRole("button", { name: "Sign in", exact: true }).first().click();
    await page.getByRole("button", { name: "Browser wallet" }).click();
    const wrong = page.getByRole("alert").filter({ hasText: "Wrong network" });
    await expect.poll(() => wrong.count(), { timeout: 20_000 }).toBe(1);
    expect(await wrong.textContent()).toMatch(/chain 1\b.*31337/);
    expect(await page.getByText("Signed in as").count()).toBe(0);
    await checkPage(page, "refusal-wrong-network");
    // Once on the right chain, the dialog asks the wallet to sign by itself.
    await page.getByRole("button", { name: "Switch network" }).click();
    await expect.poll(() => page.getByText("Signed in as").count(), { timeout: 20_000 }).toBe(1);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("a session that expires while the page is open asks to sign in again, and changes nothing", async () => {
    const owner = devAddress(19);
    const { page, context } = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: owner } });
    await page.goto("/owner");
    await signInWithBrowserWallet(page);
    await expect.poll(() => page.locator("main").textContent()).toContain("You have no agents yet");
    const db = new pg.Client({
      connectionString: `postgresql://postgres:postgres@127.0.0.1:${env.PG_PORT}/marketplace`,
    });
    await db.connect();
    try {
      await db.query(
        "UPDATE app.user_sessions SET expires_at = now() - interval '1 second' WHERE lower(address) = $1",
        [owner.toLowerCase()],
      );
    } finally {
      await db.end();
    }
    const create = page.getByRole("region", { name: "Create a hosted agent" });
    await create.getByLabel("Name").fill("too-late");
    await create.getByRole("button", { name: "Create hosted agent" }).click();
    const expired = page.getByRole("alert").filter({ hasText: "Your session has expired. Sign in again." });
    await expect.poll(() => expired.count(), { timeout: 20_000 }).toBe(1);
    await checkPage(page, "refusal-expired-session");
    const { agents } = await createMarketplaceClient({ baseUrl: apiUrl }).listAgents({ limit: 100 });
    expect(agents.some((agent) => agent.name === "too-late")).toBe(false);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });
});
