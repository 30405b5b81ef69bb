/**
 * An offer in real Chromium pages: the buyer's owner (dev account 14) offers 7 USDC for a 10 USDC
 * service from the listing page, the seller's owner (account 15) accepts it on the same page of its
 * own, and the buyer's owner buys at the agreed price; both agents' pages list the offer. The price
 * paid is checked on chain.
 */
import { createMarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser } from "playwright-core";
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

describe("an offer from the browser", () => {
  it("is made by the buyer's owner, accepted by the seller's, and bought at the agreed price", async () => {
    const sellerOwner = await sessionClient(apiUrl, 15);
    const { agent: seller, api_key: sellerKey } = await sellerOwner.createOwnedAgent({ name: "logo-designer" });
    const listing = await createMarketplaceClient({ baseUrl: apiUrl, apiKey: sellerKey }).createListing({
      agent_id: seller.id,
      title: "Design a logo for an agent",
      description: "Three drafts and one final logo",
      category: "design",
      listing_type: "FIXED",
      price_wei: "10000000",
    });
    const buyerOwner = await sessionClient(apiUrl, 14);
    const { agent: buyer } = await buyerOwner.createOwnedAgent({ name: "logo-buyer" });
    await api.requestTestUsdc({ address: buyer.wallet_address, usdc_wei: "20000000" });

    // The buyer's owner offers 7 USDC.
    const buyerVisit = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(14) } });
    const page = buyerVisit.page;
    await page.goto(`/listings/${listing.id}`);
    await signInWithBrowserWallet(page);
    const offers = page.getByRole("region", { name: "Offers" });
    await offers.getByLabel("Offer as").selectOption(buyer.id);
    await offers.getByLabel("Your price (USDC)").fill("7");
    await offers.getByLabel("Note to the seller").fill("Would 7 USDC do?");
    await offers.getByRole("button", { name: "Make offer" }).click();
    const buyersOffer = offers.getByTestId("offer");
    await expect.poll(() => buyersOffer.getAttribute("data-status"), { timeout: 20_000 }).toBe("OPEN");
    expect(await buyersOffer.textContent()).toContain("seller's turn");
    await checkPage(page, "listing-offer-made");

    // The seller's owner sees it on its listing's page and accepts it.
    const sellerVisit = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(15) },
    });
    const sellerPage = sellerVisit.page;
    await sellerPage.goto(`/listings/${listing.id}`);
    await signInWithBrowserWallet(sellerPage);
    const received = sellerPage.getByRole("region", { name: "Offers" }).getByTestId("offer");
    await expect.poll(() => received.textContent(), { timeout: 20_000 }).toContain("from logo-buyer");
    expect(await received.textContent()).toContain("Would 7 USDC do?");
    await checkPage(sellerPage, "listing-offer-received");
    await received.getByRole("button", { name: "Accept" }).click();
    await expect.poll(() => received.getAttribute("data-status"), { timeout: 20_000 }).toBe("ACCEPTED");

    // The buyer's owner buys at 7 USDC.
    await page.reload();
    await offers.getByLabel("Offer as").selectOption(buyer.id);
    await expect.poll(() => buyersOffer.getAttribute("data-status"), { timeout: 20_000 }).toBe("ACCEPTED");
    await buyersOffer.getByRole("button", { name: /^Buy at/ }).click();
    await page.getByRole("button", { name: "Confirm: buy for 7.00 USDC" }).click();
    await expect.poll(() => buyersOffer.getByRole("status").count(), { timeout: 30_000 }).toBe(1);
    expect(await usdcOnChain(env, buyer.wallet_address)).toBe(13_000_000n);
    const { transactions } = await api.listTransactions({ agent_id: buyer.id });
    expect(transactions.map((transaction) => [transaction.amount_wei, transaction.state])).toEqual([
      ["7000000", "FUNDED"],
    ]);
    // The buyer's agent page lists the offer, bought; the seller's lists it as received.
    await page.goto(`/owner/agents/${buyer.id}`);
    const row = page.getByTestId("offer-row");
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("PURCHASED");
    expect(await row.textContent()).toContain("Design a logo for an agent");
    await checkPage(page, "owner-agent-offers");
    await sellerPage.goto(`/owner/agents/${seller.id}`);
    await expect.poll(() => sellerPage.getByTestId("offer-row").textContent()).toContain("logo-buyer");
    for (const visit of [buyerVisit, sellerVisit]) {
      expect(problemsOf(visit.page)).toEqual([]);
      await visit.context.close();
    }
  });
});
