/**
 * An owner and its agent's listings, in real Chromium pages (dev account 15, shared with offers,
 * proposals and dispute: each file works with agents of its own): a listing posted from the agent's
 * page empties the form and a toast links to it; "Your listings" edits its price and description,
 * pauses and resumes it, and deactivates it for good, each seen by the public API and page; on its
 * own listing's page the owner gets the seller's view, never a buy form. A bounty is reviewed before
 * its reward leaves the balance: Cancel posts nothing, Confirm posts and funds it.
 */
import { createMarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf, sessionClient, usdcOnChain } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";
import { signInWithBrowserWallet } from "./people.ts";

const { env, apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

const toastOf = (page: Page) => page.getByRole("region", { name: "What just happened" });

async function ownedAgent(name: string, usdcWei: bigint) {
  const owner = await sessionClient(apiUrl, 15);
  const { agent, api_key } = await owner.createOwnedAgent({ name });
  if (usdcWei > 0n) await api.requestTestUsdc({ address: agent.wallet_address, usdc_wei: usdcWei.toString() });
  return { agent, self: createMarketplaceClient({ baseUrl: apiUrl, apiKey: api_key }) };
}

async function signedInPage(path: string, mobile = false) {
  const visit = await freshPage(browser, apiUrl, {
    wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(15) },
    mobile,
  });
  await visit.page.goto(path);
  await signInWithBrowserWallet(visit.page);
  return visit;
}

describe("an owner's listings", () => {
  it("posts a listing, edits its price and description, pauses, resumes and deactivates it", async () => {
    const { agent, self } = await ownedAgent("listings-owner", 0n);
    const visit = await signedInPage(`/owner/agents/${agent.id}`);
    const page = visit.page;
    const mine = page.getByRole("region", { name: "Your listings" });
    await expect.poll(() => mine.textContent()).toContain("has no listings yet");

    // Posted from the form: it empties, and a toast links to the new listing.
    const form = page.getByRole("region", { name: "Post a listing" });
    await form.getByLabel("Title").fill("Profile a slow endpoint");
    await form.getByLabel("Description").fill("A flame graph and three fixes");
    await form.getByLabel("Price (USDC)").fill("4");
    await form.getByRole("button", { name: "Post listing" }).click();
    const toast = toastOf(page).getByRole("status").filter({ hasText: 'Posted "Profile a slow endpoint"' });
    await expect.poll(() => toast.count(), { timeout: 20_000 }).toBe(1);
    expect(await form.getByLabel("Title").inputValue()).toBe("");
    expect(await form.getByLabel("Price (USDC)").inputValue()).toBe("");
    // A second press posts nothing: the emptied form is not valid.
    await form.getByRole("button", { name: "Post listing" }).click();
    const { listings: posted } = await self.listOwnListings({});
    expect(posted.map((listing) => listing.title)).toEqual(["Profile a slow endpoint"]);
    const id = posted[0]?.id as string;
    const item = mine.getByTestId("own-listing").filter({ hasText: "Profile a slow endpoint" });
    await expect.poll(() => item.getAttribute("data-state")).toBe("active");
    await checkPage(page, "owner-agent-listings");

    // Edit the price and the description.
    await item.getByRole("button", { name: "Edit Profile a slow endpoint" }).click();
    await item.getByLabel("Price (USDC)").fill("6.5");
    await item.getByLabel("Description").fill("A flame graph, three fixes and a benchmark");
    await checkPage(page, "owner-agent-listing-edit");
    await item.getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => (await api.getListing({ id })).price_wei, { timeout: 20_000 }).toBe("6500000");
    expect((await api.getListing({ id })).description).toBe("A flame graph, three fixes and a benchmark");
    await expect.poll(() => item.textContent()).toContain("6.50 USDC");

    // Pause: off the market, as the API and the public page say; then resume.
    await item.getByRole("button", { name: "Pause Profile a slow endpoint" }).click();
    await expect.poll(async () => (await api.getListing({ id })).state, { timeout: 20_000 }).toBe("paused");
    await expect.poll(() => item.getAttribute("data-state")).toBe("paused");
    const { listings: market } = await api.browseListings({ keyword: "flame" });
    expect(market.map((listing) => listing.id)).not.toContain(id);
    await item.getByRole("button", { name: "Resume Profile a slow endpoint" }).click();
    await expect.poll(async () => (await api.getListing({ id })).state, { timeout: 20_000 }).toBe("active");

    // Deactivate: reviewed, then closed for good.
    await item.getByRole("button", { name: "Deactivate Profile a slow endpoint" }).click();
    const sheet = page.getByRole("dialog", { name: 'Deactivate "Profile a slow endpoint"' });
    await expect.poll(() => sheet.textContent()).toContain("never listed again");
    await checkPage(page, "owner-agent-listing-deactivate");
    await sheet.getByRole("button", { name: "Cancel" }).click();
    expect((await api.getListing({ id })).state).toBe("active");
    await item.getByRole("button", { name: "Deactivate Profile a slow endpoint" }).click();
    await sheet.getByRole("button", { name: "Confirm: deactivate" }).click();
    await expect.poll(async () => (await api.getListing({ id })).state, { timeout: 20_000 }).toBe("closed");
    await expect.poll(() => item.getAttribute("data-state")).toBe("closed");
    expect(await item.getByRole("button").count(), "a closed listing has no controls").toBe(0);

    // The public page says so.
    await toastOf(page)
      .getByRole("status")
      .filter({ hasText: "closed for good" })
      .getByRole("link", { name: "Open the listing" })
      .click();
    await expect.poll(() => page.locator("main").textContent()).toContain("closed for good");
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });

  it("on its own listing's page the owner sees the seller's view, on a phone too", async () => {
    const { agent, self } = await ownedAgent("own-view-seller", 0n);
    const listing = await self.createListing({
      agent_id: agent.id,
      title: "Audit a smart contract",
      description: "Line by line",
      category: "coding",
      listing_type: "FIXED",
      price_wei: "12000000",
    });
    for (const mobile of [false, true]) {
      const visit = await signedInPage(`/listings/${listing.id}`, mobile);
      const page = visit.page;
      const view = page.getByTestId("seller-view");
      await expect
        .poll(() => view.textContent(), { timeout: 20_000 })
        .toContain("Your agent own-view-seller sells this");
      expect(await view.textContent()).toContain("on the market");
      expect(await page.getByText("You have no agent that can").count()).toBe(0);
      expect(await page.getByRole("button", { name: "Buy", exact: true }).count()).toBe(0);
      // The offers made to it are on the page, as the seller's.
      await expect.poll(() => page.getByRole("region", { name: "Offers" }).textContent()).toContain("No offers yet");
      await checkPage(page, mobile ? "listing-seller-view-mobile" : "listing-seller-view");
      if (!mobile) {
        await view.getByRole("link", { name: "Manage it on own-view-seller's page" }).click();
        await expect.poll(() => new URL(page.url()).pathname).toBe(`/owner/agents/${agent.id}`);
        const item = page.getByTestId("own-listing").filter({ hasText: "Audit a smart contract" });
        await expect.poll(() => item.getAttribute("data-state")).toBe("active");
      }
      expect(problemsOf(page)).toEqual([]);
      await visit.context.close();
    }
  });

  it("a bounty is reviewed before its reward leaves the balance: Cancel posts nothing, Confirm posts and funds it", async () => {
    const { agent, self } = await ownedAgent("bounty-reviewer", 10_000_000n);
    const visit = await signedInPage(`/owner/agents/${agent.id}`);
    const page = visit.page;
    const form = page.getByRole("region", { name: "Post a listing" });
    await form.getByLabel(/A bounty/).check();
    expect(await form.textContent()).toContain("Posting a bounty takes its reward from the agent's balance at once");
    await form.getByLabel("Title").fill("Find the memory leak");
    await form.getByLabel("Description").fill("It grows 1 MB an hour");
    await form.getByLabel("Reward (USDC)").fill("4");
    await form.getByRole("button", { name: "Post bounty" }).click();
    const sheet = page.getByRole("dialog", { name: 'Post the bounty "Find the memory leak"' });
    await expect.poll(() => sheet.count()).toBe(1);
    const text = (await sheet.textContent()) ?? "";
    expect(text).toContain("Reward (leaves the balance now, into escrow)4.00 USDC");
    expect(text).toContain("bounty-reviewer's balance now10.00 USDC");
    expect(text).toContain("bounty-reviewer's balance after6.00 USDC");
    expect(text).toContain("The worker receives when the payment is released");
    await checkPage(page, "post-bounty-review");
    await sheet.getByRole("button", { name: "Cancel" }).click();
    expect((await self.listOwnListings({})).listings).toEqual([]);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(10_000_000n);

    await form.getByRole("button", { name: "Post bounty" }).click();
    await sheet.getByRole("button", { name: "Confirm: post and fund 4.00 USDC" }).click();
    await expect.poll(() => sheet.count(), { timeout: 30_000 }).toBe(0);
    const toast = toastOf(page).getByRole("status").filter({ hasText: "its 4.00 USDC reward is in escrow" });
    await expect.poll(() => toast.count(), { timeout: 20_000 }).toBe(1);
    const { listings } = await self.listOwnListings({});
    expect(listings.map((listing) => [listing.title, listing.listing_type, listing.state])).toEqual([
      ["Find the memory leak", "BOUNTY", "active"],
    ]);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(6_000_000n);
    expect(await form.getByLabel("Title").inputValue()).toBe("");
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });
});
