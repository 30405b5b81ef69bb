/**
 * A dispute in real Chromium pages: the buyer's owner (dev account 14) buys a service for its hosted
 * agent from the listing page, the seller (a hosted agent of account 15, over the API) delivers, the
 * buyer's owner raises a dispute with evidence from the transaction page, the arbiter (account 1,
 * the escrow's arbiter) resolves it 70/30 on the desk with a note, and both owners read the ruling and
 * the note on their transaction pages. The split is checked on chain.
 */
import { createMarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf, sessionClient, usdcOnChain } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";
import { signInWithBrowserWallet, weiShown } from "./people.ts";

const { env, apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
const NOTE = "The report covers 7 of the 10 chapters asked for: 70% to the seller.";
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("a dispute from the browser to the arbiter's desk", () => {
  it("is raised with evidence, resolved 70/30 with a note, and both owners read the ruling", async () => {
    // The seller: a hosted agent of account 15, with a 10 USDC service.
    const sellerOwner = await sessionClient(apiUrl, 15);
    const { agent: seller, api_key: sellerKey } = await sellerOwner.createOwnedAgent({ name: "chapter-writer" });
    const sellerAgent = createMarketplaceClient({ baseUrl: apiUrl, apiKey: sellerKey });
    const listing = await sellerAgent.createListing({
      agent_id: seller.id,
      title: "Write a ten-chapter market report",
      description: "Ten chapters on agent marketplaces",
      category: "writing",
      listing_type: "FIXED",
      price_wei: "10000000",
    });

    // The buyer's owner signs in, creates a hosted agent and buys for it from the listing page.
    const buyerPage = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(14) } });
    const page = buyerPage.page;
    await page.goto("/owner");
    await signInWithBrowserWallet(page);
    const create = page.getByRole("region", { name: "Create a hosted agent" });
    await create.getByLabel("Name").fill("report-buyer");
    await create.getByRole("button", { name: "Create hosted agent" }).click();
    const buyerKey = (await page.getByTestId("new-api-key").textContent({ timeout: 20_000 })) ?? "";
    const buyer = await createMarketplaceClient({ baseUrl: apiUrl, apiKey: buyerKey }).getMe();
    await api.requestTestUsdc({ address: buyer.wallet_address, usdc_wei: "20000000" });
    await page.goto(`/listings/${listing.id}`);
    await page.getByLabel("Your agent").selectOption(buyer.id);
    await page.getByRole("button", { name: "Buy", exact: true }).click();
    // The review, then the purchase.
    await page.getByRole("button", { name: "Confirm: buy for 10.00 USDC" }).click();
    await expect.poll(() => page.getByText("Bought: the escrow is funded").count(), { timeout: 30_000 }).toBe(1);
    await page.getByRole("article", { name: "Buy" }).getByRole("link", { name: "Open the transaction" }).click();
    const transactionId = new URL(page.url()).pathname.split("/").at(-1) as string;
    // An owner is no arbiter: no Desk in its navigation (the escrow's roles were read for the fee).
    expect(await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "My agents" }).count()).toBe(
      1,
    );
    expect(await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Desk" }).count()).toBe(0);

    // The seller delivers (over the API); the buyer's owner disputes with evidence.
    await sellerAgent.deliverWork({ id: transactionId, deliverable: "Chapters 1 to 7" });
    await page.reload();
    await page.getByText("Raise a dispute").click();
    await page.getByLabel("Reason").fill("Only 7 of the 10 chapters were delivered");
    await page.getByLabel("Evidence (optional)").fill("The table of contents lists chapters 8 to 10 as missing");
    await page.getByRole("button", { name: "Raise dispute" }).click();
    await expect
      .poll(async () => (await api.getTransaction({ id: transactionId })).state, { timeout: 30_000 })
      .toBe("DISPUTED");
    await checkPage(page, "owner-transaction-disputed");

    // The arbiter works the desk.
    const arbiter = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(1) } });
    const desk = arbiter.page;
    await desk.goto("/desk");
    await signInWithBrowserWallet(desk);
    // The desk is in the arbiter's navigation (and only there: the owners' pages above had none).
    await expect
      .poll(() => desk.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Desk" }).count(), {
        timeout: 20_000,
      })
      .toBe(1);
    const row = desk.getByTestId("dispute-row").filter({ hasText: "report-buyer" });
    await expect.poll(() => row.count(), { timeout: 20_000 }).toBe(1);
    await checkPage(desk, "desk");
    await row.getByRole("link").first().click();
    await expect.poll(() => desk.locator("main").textContent()).toContain("Only 7 of the 10 chapters were delivered");
    await expect.poll(() => desk.locator("main").textContent()).toContain("chapters 8 to 10 as missing");
    await expect.poll(() => desk.locator("main").textContent()).toContain("Chapters 1 to 7");
    await desk.getByLabel("Seller's share").fill("7000");
    const preview = desk.getByTestId("payout-preview");
    await expect.poll(() => preview.textContent()).toContain("its share 7.00 USDC");
    const previewedSeller = await weiShown(desk, "preview-seller");
    expect(await weiShown(desk, "preview-buyer")).toBe(3_000_000n);
    await desk.getByLabel("Note to both parties").fill(NOTE);
    await checkPage(desk, "desk-case");
    await desk.getByRole("button", { name: "Resolve" }).click();
    // The ruling is reviewed before it is sent: the split, what each side receives.
    const sheet = desk.getByRole("dialog", { name: "Send this ruling?" });
    await expect.poll(() => sheet.textContent()).toContain("Split: 70 % to the seller");
    await sheet.getByRole("button", { name: "Send the ruling" }).click();
    // The case now shows the ruling in place of the form.
    await expect.poll(() => desk.locator("main").textContent(), { timeout: 30_000 }).toContain("The arbiter's ruling");
    expect(await desk.locator("main").textContent()).toContain(NOTE);

    // On chain: the buyer got 30% back.
    const resolved = await api.getTransaction({ id: transactionId });
    expect(resolved.resolution).toMatchObject({ seller_bps: 7000, buyer_refunded_wei: "3000000" });
    expect(await usdcOnChain(env, buyer.wallet_address)).toBe(13_000_000n);
    expect(await usdcOnChain(env, seller.wallet_address)).toBe(BigInt(resolved.resolution?.seller_received_wei ?? -1));
    expect(BigInt(resolved.resolution?.seller_received_wei ?? -1), "what the desk previewed, fee included").toBe(
      previewedSeller,
    );

    // Both owners read the ruling and its note.
    await page.reload();
    await expect.poll(() => page.getByTestId("ruling-note").textContent(), { timeout: 20_000 }).toBe(NOTE);
    const sellerPage = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(15) } });
    await sellerPage.page.goto(`/owner/transactions/${transactionId}?agent=${seller.id}`);
    await signInWithBrowserWallet(sellerPage.page);
    await expect.poll(() => sellerPage.page.getByTestId("ruling-note").textContent(), { timeout: 20_000 }).toBe(NOTE);
    await checkPage(sellerPage.page, "owner-transaction-resolved");
    for (const visit of [buyerPage, arbiter, sellerPage]) {
      expect(problemsOf(visit.page)).toEqual([]);
      await visit.context.close();
    }
  });
});
