/**
 * The review before each money move of a buyer, in real Chromium pages: Buy shows the price, the
 * platform fee, what the seller receives and the agent's balance after; Cancel sends nothing (no
 * transaction, the balance on chain unchanged) and Confirm buys. Buying at an accepted offer's
 * price is reviewed the same way, and afterwards the page offers neither the full-price Buy nor the
 * used offer's controls. A seller's counter-offer reaches the buyer's open page without a reload.
 * A withdrawal is reviewed (amount, address, balance after) before it is sent. Dev accounts 14
 * (buyer's owner) and 15 (seller's owner), shared with offers, proposals and dispute: each file
 * works with agents of its own.
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
let feeBps: number;

beforeAll(async () => {
  browser = await launchBrowser();
  feeBps = (await api.getInfo()).for_agents.chain.fee_bps ?? -1;
  expect(feeBps, "the indexer has read the fee").toBeGreaterThanOrEqual(0);
});

afterAll(async () => {
  await browser?.close();
});

/** "9.90" for 9900000 wei: the figures as the page writes them. */
const usdc = (wei: bigint) => {
  const whole = wei / 1_000_000n;
  const fraction = (wei % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction} USDC`;
};

/** A seller's hosted agent of account 15 with a FIXED listing. */
async function sellerWithListing(name: string, title: string, priceWei: string, negotiable: boolean) {
  const owner = await sessionClient(apiUrl, 15);
  const { agent, api_key } = await owner.createOwnedAgent({ name });
  const seller = createMarketplaceClient({ baseUrl: apiUrl, apiKey: api_key });
  const listing = await seller.createListing({
    agent_id: agent.id,
    title,
    description: `${title}, done well`,
    category: "coding",
    listing_type: "FIXED",
    price_wei: priceWei,
    is_negotiable: negotiable,
  });
  return { agent, seller, listing };
}

/** A buyer's hosted agent of account 14, given `usdcWei` by the faucet. */
async function buyerWith(name: string, usdcWei: bigint) {
  const owner = await sessionClient(apiUrl, 14);
  const { agent, api_key } = await owner.createOwnedAgent({ name });
  if (usdcWei > 0n) await api.requestTestUsdc({ address: agent.wallet_address, usdc_wei: usdcWei.toString() });
  return { agent, buyer: createMarketplaceClient({ baseUrl: apiUrl, apiKey: api_key }) };
}

async function signedInPage(account: number, path: string, mobile = false) {
  const visit = await freshPage(browser, apiUrl, {
    wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(account) },
    mobile,
  });
  await visit.page.goto(path);
  await signInWithBrowserWallet(visit.page);
  return visit;
}

const toastOf = (page: Page) => page.getByRole("region", { name: "What just happened" });

describe("the review before buying", () => {
  it("shows the fee and the seller's payout; Cancel sends nothing; Confirm buys and says so", async () => {
    const price = 10_000_000n;
    const { listing } = await sellerWithListing("review-seller", "Review a pull request", price.toString(), false);
    const { agent } = await buyerWith("review-buyer", 25_000_000n);
    const visit = await signedInPage(14, `/listings/${listing.id}`);
    const page = visit.page;
    await page.getByLabel("Your agent").selectOption(agent.id);
    await page.getByRole("button", { name: "Buy", exact: true }).click();

    const sheet = page.getByRole("dialog", { name: 'Buy "Review a pull request"' });
    await expect.poll(() => sheet.count()).toBe(1);
    const fee = (price * BigInt(feeBps)) / 10_000n;
    const text = (await sheet.textContent()) ?? "";
    expect(text).toContain(`You pay (into escrow)${usdc(price)}`);
    expect(text).toContain(`Platform fee (${feeBps / 100} %, taken from the seller's share)${usdc(fee)}`);
    expect(text).toContain(`review-seller receives when the payment is released${usdc(price - fee)}`);
    expect(text).toContain(`review-buyer's balance now${usdc(25_000_000n)}`);
    expect(text).toContain(`review-buyer's balance after${usdc(15_000_000n)}`);
    expect(text).toContain("Cannot be undone");
    await checkPage(page, "buy-review");

    // Cancel: nothing was sent.
    await sheet.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => sheet.count()).toBe(0);
    expect((await api.listTransactions({ agent_id: agent.id })).transactions).toEqual([]);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(25_000_000n);

    // Confirm: bought, and a toast links to the transaction.
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    await sheet.getByRole("button", { name: `Confirm: buy for ${usdc(price)}` }).click();
    await expect.poll(() => sheet.count(), { timeout: 30_000 }).toBe(0);
    const toast = toastOf(page).getByRole("status").filter({ hasText: "Bought" });
    await expect.poll(() => toast.count(), { timeout: 20_000 }).toBe(1);
    const { transactions } = await api.listTransactions({ agent_id: agent.id });
    expect(transactions.map((transaction) => [transaction.amount_wei, transaction.state])).toEqual([
      [price.toString(), "FUNDED"],
    ]);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(15_000_000n);
    await toast.getByRole("link", { name: "Open the transaction" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/owner/transactions/${transactions[0]?.id}`);
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });

  it("on a phone, the review fits, a figure per line, and says the exact figures two decimals round down", async () => {
    // 8.50 USDC: a 1 % fee is 0.085, the seller's share 8.415; shown to the cent they would not add up.
    const { listing } = await sellerWithListing("phone-seller", "Fix a flaky test", "8500000", false);
    const { agent } = await buyerWith("phone-buyer", 10_000_000n);
    const visit = await signedInPage(14, `/listings/${listing.id}`, true);
    const page = visit.page;
    await page.getByLabel("Your agent").selectOption(agent.id);
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    const sheet = page.getByRole("dialog", { name: 'Buy "Fix a flaky test"' });
    await expect.poll(() => sheet.count()).toBe(1);
    await checkPage(page, "buy-review-mobile");
    // Each line is its label and its amount side by side, inside the screen (not a grid of four
    // columns cut off at the right edge).
    const width = page.viewportSize()?.width ?? 0;
    const lines = sheet.locator(".review-line");
    expect(await lines.count()).toBeGreaterThanOrEqual(5);
    for (const line of await lines.all()) {
      const label = await line.locator("dt").boundingBox();
      const amount = await line.locator("dd").boundingBox();
      expect(label && amount, "both parts are drawn").toBeTruthy();
      if (!label || !amount) continue;
      expect(amount.x, `${await line.textContent()}: the amount right of its label`).toBeGreaterThan(label.x);
      expect(amount.y, `${await line.textContent()}: on the label's line`).toBeLessThan(label.y + label.height);
      expect(amount.x + amount.width, `${await line.textContent()}: inside the screen`).toBeLessThanOrEqual(width);
    }
    const fee = (8_500_000n * BigInt(feeBps)) / 10_000n;
    expect(fee % 10_000n, "at this price the fee has a part of a cent").not.toBe(0n);
    const exact = await sheet.getByTestId("exact-figures").textContent();
    expect(exact).toContain(usdc(fee));
    expect(exact).toContain(usdc(8_500_000n - fee));
    await sheet.getByRole("button", { name: "Cancel" }).click();
    expect((await api.listTransactions({ agent_id: agent.id })).transactions).toEqual([]);
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });

  it("buys at an accepted offer after a review; then neither the full-price Buy nor the offer's controls remain", async () => {
    const {
      agent: sellerAgent,
      seller,
      listing,
    } = await sellerWithListing("offer-review-seller", "Translate the docs", "10000000", true);
    const { agent, buyer } = await buyerWith("offer-review-buyer", 20_000_000n);
    const { offer } = await buyer.makeOffer({ id: listing.id, price_wei: "7000000" });
    await seller.acceptOffer({ id: offer.id });

    const visit = await signedInPage(14, `/listings/${listing.id}`);
    const page = visit.page;
    await page.getByLabel("Your agent").selectOption(agent.id);
    const buyArticle = page.getByRole("article", { name: "Buy" });
    await expect.poll(() => buyArticle.textContent()).toContain("accepted offer-review-buyer's offer of 7.00 USDC");
    expect(await buyArticle.getByRole("button", { name: "Buy", exact: true }).count()).toBe(0);

    const offers = page.getByRole("region", { name: "Offers" });
    await offers.getByLabel("Offer as").selectOption(agent.id);
    const mine = offers.getByTestId("offer");
    await expect.poll(() => mine.getAttribute("data-status")).toBe("ACCEPTED");
    await mine.getByRole("button", { name: /^Buy at/ }).click();
    const sheet = page.getByRole("dialog", { name: 'Buy "Translate the docs" at the agreed price' });
    await expect.poll(() => sheet.count()).toBe(1);
    const fee = (7_000_000n * BigInt(feeBps)) / 10_000n;
    const text = (await sheet.textContent()) ?? "";
    expect(text).toContain("You pay (into escrow)7.00 USDC");
    expect(text).toContain("Listed price10.00 USDC");
    expect(text).toContain(`${sellerAgent.name} receives when the payment is released${usdc(7_000_000n - fee)}`);
    expect(text).toContain("offer-review-buyer's balance after13.00 USDC");
    await checkPage(page, "buy-at-offer-review");
    await sheet.getByRole("button", { name: "Cancel" }).click();
    expect((await api.listTransactions({ agent_id: agent.id })).transactions).toEqual([]);

    await mine.getByRole("button", { name: /^Buy at/ }).click();
    await sheet.getByRole("button", { name: "Confirm: buy for 7.00 USDC" }).click();
    await expect.poll(() => sheet.count(), { timeout: 30_000 }).toBe(0);
    await expect
      .poll(() => toastOf(page).getByRole("status").filter({ hasText: "at the agreed 7.00 USDC" }).count())
      .toBe(1);
    await expect.poll(() => mine.getAttribute("data-status"), { timeout: 20_000 }).toBe("PURCHASED");
    expect(await mine.getByRole("button").count(), "the used offer has no controls").toBe(0);
    await expect.poll(() => buyArticle.textContent()).toContain("bought this at its offer's price, 7.00 USDC");
    expect(await buyArticle.getByRole("button", { name: "Buy", exact: true }).count()).toBe(0);
    const { transactions } = await api.listTransactions({ agent_id: agent.id });
    expect(transactions.map((transaction) => [transaction.amount_wei, transaction.state])).toEqual([
      ["7000000", "FUNDED"],
    ]);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(13_000_000n);
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });

  it("a price changed before the confirm is not charged: the sheet says so and shows the new figures", async () => {
    const { seller, listing } = await sellerWithListing("reprice-seller", "Tune a query", "2000000", false);
    const { agent } = await buyerWith("reprice-buyer", 20_000_000n);
    const visit = await signedInPage(14, `/listings/${listing.id}`);
    const page = visit.page;
    await page.getByLabel("Your agent").selectOption(agent.id);
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    const sheet = page.getByRole("dialog", { name: 'Buy "Tune a query"' });
    await expect.poll(() => sheet.textContent()).toContain("You pay (into escrow)2.00 USDC");
    await seller.updateListing({ id: listing.id, price_wei: "3000000" });
    await sheet.getByRole("button", { name: "Confirm: buy for 2.00 USDC" }).click();
    const alert = sheet.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("The price changed to 3.00 USDC: review again.");
    await expect.poll(() => sheet.textContent()).toContain("You pay (into escrow)3.00 USDC");
    expect((await api.listTransactions({ agent_id: agent.id })).transactions).toEqual([]);
    await checkPage(page, "buy-review-price-changed");
    await sheet.getByRole("button", { name: "Confirm: buy for 3.00 USDC" }).click();
    await expect.poll(() => sheet.count(), { timeout: 30_000 }).toBe(0);
    const { transactions } = await api.listTransactions({ agent_id: agent.id });
    expect(transactions.map((transaction) => transaction.amount_wei)).toEqual(["3000000"]);
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });
});

describe("a live negotiation", () => {
  it("the seller's counter-offer reaches the buyer's open page without a reload", async () => {
    const { seller, listing } = await sellerWithListing("counter-seller", "Write a migration", "9000000", true);
    const { agent } = await buyerWith("counter-buyer", 0n);
    const visit = await signedInPage(14, `/listings/${listing.id}`);
    const page = visit.page;
    const offers = page.getByRole("region", { name: "Offers" });
    await offers.getByLabel("Offer as").selectOption(agent.id);
    await offers.getByLabel("Your price (USDC)").fill("5");
    await offers.getByRole("button", { name: "Make offer" }).click();
    const mine = offers.getByTestId("offer");
    await expect.poll(() => mine.getAttribute("data-status"), { timeout: 20_000 }).toBe("OPEN");
    const { offers: received } = await seller.listListingOffers({ id: listing.id });
    await seller.counterOffer({ id: received[0]?.id as string, price_wei: "7500000", message: "7.50 and it's yours" });
    // No reload: the open page reads the offers again by itself.
    await expect.poll(() => mine.getAttribute("data-status"), { timeout: 15_000 }).toBe("COUNTERED");
    expect(await mine.textContent()).toContain("7.50 USDC");
    expect(await mine.textContent()).toContain("7.50 and it's yours");
    expect(await mine.getByRole("button", { name: "Accept" }).count()).toBe(1);
    await checkPage(page, "listing-counter-offer-live");
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });
});

describe("the review before withdrawing", () => {
  it("shows the amount, the address and the balance after; Cancel sends nothing; Confirm sends and lists it", async () => {
    const owner = await sessionClient(apiUrl, 14);
    const { agent, api_key } = await owner.createOwnedAgent({ name: "withdraw-review" });
    await api.requestTestUsdc({ address: agent.wallet_address, usdc_wei: "8000000" });
    const self = createMarketplaceClient({ baseUrl: apiUrl, apiKey: api_key });
    const destination = devAddress(14);
    const before = await usdcOnChain(env, destination);
    const visit = await signedInPage(14, "/owner");
    const page = visit.page;
    const card = page.getByTestId("owned-agent").filter({ hasText: "withdraw-review" });
    await card.locator("summary", { hasText: "Withdraw" }).click();
    // The owner's own wallet is one press away (the session's address).
    await card.getByRole("button", { name: /^To my wallet/ }).click();
    expect((await card.getByLabel("Destination address").inputValue()).toLowerCase()).toBe(destination.toLowerCase());
    expect(await card.getByRole("button", { name: /^To my wallet/ }).count(), "used: it goes").toBe(0);
    await card.getByLabel("Amount (USDC)").fill("2.5");
    await card.getByRole("button", { name: "Withdraw", exact: true }).click();
    const sheet = page.getByRole("dialog", { name: "Review the withdrawal" });
    await expect.poll(() => sheet.count()).toBe(1);
    const text = (await sheet.textContent()) ?? "";
    expect(text).toContain("Amount sent2.50 USDC");
    expect(text).toContain(`To the address${destination}`);
    expect(text).toContain("withdraw-review's balance now8.00 USDC");
    expect(text).toContain("withdraw-review's balance after5.50 USDC");
    expect(text).toContain("cannot be called back");
    await checkPage(page, "withdraw-review");
    await sheet.getByRole("button", { name: "Cancel" }).click();
    expect((await self.listWithdrawals()).withdrawals).toEqual([]);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(8_000_000n);

    await card.getByRole("button", { name: "Withdraw", exact: true }).click();
    await sheet.getByRole("button", { name: "Confirm: send 2.50 USDC" }).click();
    await expect.poll(() => sheet.count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(() => toastOf(page).getByRole("status").filter({ hasText: "2.50 USDC sent" }).count()).toBe(1);
    const { withdrawals } = await self.listWithdrawals();
    expect(withdrawals.map((withdrawal) => withdrawal.amount_wei)).toEqual(["2500000"]);
    await expect.poll(() => usdcOnChain(env, agent.wallet_address), { timeout: 20_000 }).toBe(5_500_000n);
    expect(await usdcOnChain(env, destination)).toBe(before + 2_500_000n);
    await expect.poll(() => card.getByTestId("withdrawal").count()).toBe(1);
    // The form is empty again: a second press sends nothing twice.
    expect(await card.getByLabel("Amount (USDC)").inputValue()).toBe("");
    expect(problemsOf(page)).toEqual([]);
    await visit.context.close();
  });
});
