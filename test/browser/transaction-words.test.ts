/**
 * What people read and click on a transaction, in real Chromium pages. The buyer's owner (dev
 * account 14) runs a hosted agent that buys a 10 USDC service from a hosted seller of account 15
 * (over the API): its refund button says the buyer takes the money back; the release opens a review
 * with the platform fee and the seller's payout, and nothing is sent before its confirm (Cancel
 * leaves the transaction as it was); once released the used-up controls go, a toast says what
 * happened, and a posted review cannot be posted twice. The page shows amounts in USDC, names
 * instead of ids, and no wei, uuid, zero address or raw hash outside its "details" disclosures.
 * A second purchase is disputed and split 60/40 at the desk (account 1), through the ruling's
 * review: the split is named as a split on the desk, on the transaction page and in the agent's
 * list. And the owner writes to the seller by name.
 */
import { createMarketplaceClient, type MarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf, sessionClient, usdcOnChain } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf, type Visit } from "./browser.ts";
import { signInWithBrowserWallet, weiShown } from "./people.ts";

const { env, apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
const tag = Math.random().toString(36).slice(2, 7);
const SELLER_NAME = `words-seller-${tag}`;
const BUYER_NAME = `words-buyer-${tag}`;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let browser: Browser;
let seller: { id: string; wallet_address: string };
let sellerAgent: MarketplaceClient;
let buyer: { id: string; wallet_address: string };
let buyerAgent: MarketplaceClient;
let listingId: string;
/** The buyer's owner, signed in (by the first test that needs it: signing in polls, inside a test). */
let owner: Visit | undefined;

async function ownerPage(): Promise<Page> {
  if (!owner) {
    owner = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(14) } });
    await owner.page.goto("/owner");
    await signInWithBrowserWallet(owner.page);
  }
  return owner.page;
}

beforeAll(async () => {
  browser = await launchBrowser();
  const sellerOwner = await sessionClient(apiUrl, 15);
  const made = await sellerOwner.createOwnedAgent({ name: SELLER_NAME });
  seller = made.agent;
  sellerAgent = createMarketplaceClient({ baseUrl: apiUrl, apiKey: made.api_key });
  listingId = (
    await sellerAgent.createListing({
      agent_id: seller.id,
      title: "Proofread a white paper",
      description: "Twenty pages, American English",
      category: "writing",
      listing_type: "FIXED",
      price_wei: "10000000",
    })
  ).id;
  const buyerOwner = await sessionClient(apiUrl, 14);
  const bought = await buyerOwner.createOwnedAgent({ name: BUYER_NAME });
  buyer = bought.agent;
  buyerAgent = createMarketplaceClient({ baseUrl: apiUrl, apiKey: bought.api_key });
  await api.requestTestUsdc({ address: buyer.wallet_address, usdc_wei: "30000000" });
});

afterAll(async () => {
  await owner?.context.close();
  await browser?.close();
});

/** A new purchase of the listing by the buyer's agent (over the API): its transaction id. */
async function purchase(): Promise<string> {
  const answer = await buyerAgent.buyListing({ id: listingId, expected_price_wei: "10000000" });
  expect(answer.state).toBe("FUNDED");
  return answer.transaction_id as string;
}

const stateOf = async (id: string) => (await api.getTransaction({ id })).state;

/** The text people read in `main`: every text node outside a <details> disclosure and the exact figures' note, spaced. */
function visibleText(page: Page): Promise<string> {
  return page.locator("main").evaluate((main) => {
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
    const words: string[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // (.exact-figures: the one place amounts have every decimal, labelled "Exactly".)
      if (!node.parentElement?.closest("details, script, style, .exact-figures")) words.push(node.textContent ?? "");
    }
    return words.join(" ");
  });
}

/** Nothing a person should not have to read: wei, ids, the zero address, raw hashes or addresses. */
async function expectPeoplesWords(page: Page, where: string) {
  const text = await visibleText(page);
  expect(text, `${where}: no wei`).not.toMatch(/\bwei\b|_wei/i);
  expect(text, `${where}: no uuid`).not.toMatch(UUID);
  expect(text, `${where}: no raw address or hash`).not.toMatch(/0x[0-9a-f]{12,}/i);
  expect(text, `${where}: no codes`).not.toMatch(/\bRESOLVED\b|\bRELEASED\b|\bDELIVERED\b|\bFUNDED\b/);
  // Amounts in one format: two decimals.
  for (const amount of text.match(/\d+\.\d+ USDC/g) ?? []) expect(amount, where).toMatch(/^\d+\.\d{2} USDC$/);
}

describe("a transaction in people's words", () => {
  it("reviews the release before sending it, then says what happened; the page speaks USDC and names", async () => {
    const page = await ownerPage();
    const id = await purchase();
    await page.goto(`/owner/transactions/${id}?agent=${buyer.id}`);
    // Before delivery, the buyer's own refund: it takes its money back.
    await expect.poll(() => page.getByRole("button", { name: "Cancel and take the money back" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Refund the buyer" }).count()).toBe(0);
    await expect.poll(() => page.getByTestId("transaction-state").textContent()).toBe("Funded");

    // The page follows the buyer's notifications: the seller's delivery shows without a reload.
    await expect.poll(() => page.getByTestId("live-state").textContent(), { timeout: 20_000 }).toBe("● Live");
    await sellerAgent.deliverWork({ id, deliverable: "Twenty pages proofread" });
    await expect.poll(() => page.getByTestId("transaction-state").textContent(), { timeout: 20_000 }).toBe("Delivered");
    await expect.poll(() => page.getByText("Twenty pages proofread").count(), { timeout: 20_000 }).toBe(1);
    const detail = await api.getTransaction({ id });
    expect(detail.fee_bps, "the escrow's fee").toEqual(expect.any(Number));
    const sellerWei = BigInt(detail.seller_receives_wei ?? -1);
    expect(sellerWei + BigInt(detail.fee_wei ?? -1)).toBe(10_000_000n);
    // The page names the price, the fee and what the seller will receive.
    expect(await weiShown(page, "transaction-price")).toBe(10_000_000n);
    expect(await weiShown(page, "transaction-fee")).toBe(BigInt(detail.fee_wei ?? -1));
    expect(await weiShown(page, "seller-receives")).toBe(sellerWei);

    // The release opens its review: the fee and the seller's payout; Cancel sends nothing.
    await page.getByRole("button", { name: "Release payment" }).click();
    const sheet = page.getByRole("dialog", { name: `Release the payment to ${SELLER_NAME}?` });
    await expect.poll(() => sheet.count()).toBe(1);
    const lines = sheet.getByTestId("review-sheet");
    expect(await lines.textContent()).toContain(`Platform fee (${(detail.fee_bps ?? 0) / 100} %)`);
    expect(await lines.textContent()).toContain(`${SELLER_NAME} receives`);
    expect(await sheet.locator(".review-line.strong .amount").getAttribute("data-wei")).toBe(sellerWei.toString());
    expect(await sheet.textContent()).toContain("Cannot be undone");
    await checkPage(page, "transaction-release-review");
    await page.setViewportSize({ width: 375, height: 812 });
    await checkPage(page, "transaction-release-review-mobile");
    await page.setViewportSize({ width: 1280, height: 800 });
    const sellerBefore = await usdcOnChain(env, seller.wallet_address);
    await sheet.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => sheet.count()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await stateOf(id), "nothing sent on Cancel").toBe("DELIVERED");
    expect(await usdcOnChain(env, seller.wallet_address)).toBe(sellerBefore);

    // Confirmed: released; the toast says so, the release and dispute controls are gone.
    await page.getByRole("button", { name: "Release payment" }).click();
    await sheet.getByRole("button", { name: "Confirm release" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Payment released" }).count(), {
        timeout: 30_000,
      })
      .toBe(1);
    expect(await stateOf(id)).toBe("RELEASED");
    expect(await usdcOnChain(env, seller.wallet_address)).toBe(sellerBefore + sellerWei);
    await expect.poll(() => page.getByRole("button", { name: "Release payment" }).count()).toBe(0);
    expect(await page.getByText("Raise a dispute").count()).toBe(0);
    await expect.poll(() => page.getByTestId("transaction-state").textContent(), { timeout: 20_000 }).toBe("Released");

    // The review is posted once: its form goes, and what was posted shows.
    await page.getByRole("button", { name: "Post review" }).click();
    await expect
      .poll(() => page.getByTestId("my-review").textContent(), { timeout: 20_000 })
      .toContain(`You rated ${SELLER_NAME} 5 of 5`);
    expect(await page.getByRole("button", { name: "Post review" }).count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByTestId("my-review").count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByRole("button", { name: "Post review" }).count()).toBe(0);

    // The timeline names who acted, and says amounts in USDC.
    const events = page.getByTestId("timeline-event");
    await expect.poll(() => events.filter({ hasText: "Payment released to the seller" }).count()).toBe(1);
    expect(await events.filter({ hasText: "Paid into escrow" }).textContent()).toContain(
      `by ${BUYER_NAME} (the buyer)`,
    );
    expect(await events.filter({ hasText: "Paid into escrow" }).textContent()).toContain("10.00 USDC");
    expect(await events.filter({ hasText: "Work handed in" }).textContent()).toContain(
      `by ${SELLER_NAME} (the seller)`,
    );
    await expectPeoplesWords(page, "released transaction");
    await checkPage(page, "transaction-released");
    await page.setViewportSize({ width: 375, height: 812 });
    await checkPage(page, "transaction-released-mobile");
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problemsOf(page)).toEqual([]);
  });

  it("names a 60/40 ruling as a split, reviewed at the desk before it is sent", async () => {
    const id = await purchase();
    await sellerAgent.deliverWork({ id, deliverable: "Twelve of twenty pages" });
    await buyerAgent.openDispute({ id, reason: "Only twelve pages were proofread" });
    await expect.poll(() => stateOf(id), { timeout: 20_000 }).toBe("DISPUTED");

    const arbiter = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(1) } });
    const desk = arbiter.page;
    await desk.goto(`/desk/${id}`);
    await signInWithBrowserWallet(desk);
    await expect
      .poll(() => desk.locator("main").textContent(), { timeout: 20_000 })
      .toContain("Only twelve pages were proofread");
    await desk.getByLabel("Basis points (0 to 10000)").fill("6000");
    await desk.getByLabel("Note to both parties").fill("Twelve of twenty pages: 60 % to the seller.");
    await desk.getByRole("button", { name: "Resolve" }).click();
    const sheet = desk.getByRole("dialog", { name: "Send this ruling?" });
    await expect.poll(() => sheet.count()).toBe(1);
    expect(await sheet.textContent()).toContain("Split: 60 % to the seller");
    expect(await sheet.textContent()).toContain("Platform fee");
    expect(await sheet.textContent()).toContain(`${SELLER_NAME} (the seller) receives`);
    await checkPage(desk, "desk-ruling-review");
    await desk.setViewportSize({ width: 375, height: 812 });
    await checkPage(desk, "desk-ruling-review-mobile");
    await desk.setViewportSize({ width: 1280, height: 800 });
    await sheet.getByRole("button", { name: "Cancel" }).click();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await stateOf(id), "nothing sent on Cancel").toBe("DISPUTED");
    await desk.getByRole("button", { name: "Resolve" }).click();
    await sheet.getByRole("button", { name: "Send the ruling" }).click();
    await expect
      .poll(() => desk.getByTestId("case-ruling").textContent(), { timeout: 30_000 })
      .toContain("Split: 60 % to the seller");
    expect((await api.getTransaction({ id })).resolution?.seller_bps).toBe(6_000);
    await checkPage(desk, "desk-case-split");
    await desk.setViewportSize({ width: 375, height: 812 });
    await checkPage(desk, "desk-case-split-mobile");
    await desk.setViewportSize({ width: 1280, height: 800 });
    await desk.goto("/desk?status=resolved");
    const row = desk.getByTestId("dispute-row").filter({ hasText: BUYER_NAME });
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("Split: 60 % to the seller");
    await checkPage(desk, "desk-resolved");
    await desk.setViewportSize({ width: 375, height: 812 });
    await checkPage(desk, "desk-resolved-mobile");
    expect(problemsOf(desk)).toEqual([]);
    await arbiter.context.close();

    // The buyer's owner reads a split, never "RELEASED".
    const page = await ownerPage();
    await page.goto(`/owner/transactions/${id}?agent=${buyer.id}`);
    await expect
      .poll(() => page.getByTestId("transaction-state").textContent(), { timeout: 20_000 })
      .toBe("Split: 60 % to the seller");
    const ruled = page.getByTestId("timeline-event").filter({ hasText: "Split by the arbiter" });
    await expect.poll(() => ruled.count(), { timeout: 20_000 }).toBe(1);
    expect(await ruled.textContent()).toContain("by the arbiter");
    await expectPeoplesWords(page, "split transaction");
    await checkPage(page, "transaction-split");
    await page.setViewportSize({ width: 375, height: 812 });
    await checkPage(page, "transaction-split-mobile");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/owner/agents/${buyer.id}`);
    const listed = page.getByTestId("transaction-row").filter({ hasText: "Split: 60 % to the seller" });
    await expect.poll(() => listed.count(), { timeout: 20_000 }).toBe(1);
    expect(
      await page
        .getByTestId("transaction-row")
        .filter({ hasText: /RESOLVED|RELEASED/ })
        .count(),
    ).toBe(0);
    expect(problemsOf(page)).toEqual([]);
  });

  it("writes to an agent chosen by name, never asking for its id", async () => {
    const page = await ownerPage();
    await page.goto(`/owner/agents/${buyer.id}`);
    const form = page.getByRole("form", { name: "Write a message" });
    await expect.poll(() => form.count(), { timeout: 20_000 }).toBe(1);
    expect(await form.getByText("agent id").count()).toBe(0);
    // A name that is no one's: said so, and nothing is sent (no "Invalid UUID").
    await form.getByLabel("To (the agent's name)").fill(`nobody-${tag}`);
    await form.getByLabel("Your message").fill("Hello?");
    await expect.poll(() => form.getByText("No agent has").count(), { timeout: 20_000 }).toBe(1);
    await form.getByRole("button", { name: "Send message" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toContain("Choose who");
    expect(await page.locator("main").textContent()).not.toMatch(/invalid uuid/i);

    // Part of the seller's name finds it; its name is chosen, and the message goes to it.
    await form.getByLabel("To (the agent's name)").fill(`words-seller-${tag.slice(0, 3)}`);
    const found = form.getByRole("list", { name: "Agents found" });
    await expect.poll(() => found.getByRole("button", { name: SELLER_NAME }).count(), { timeout: 20_000 }).toBe(1);
    await checkPage(page, "messages-recipient-search");
    await found.getByRole("button", { name: SELLER_NAME }).click();
    expect(await form.getByTestId("message-recipient").textContent()).toBe(SELLER_NAME);
    await form.getByLabel("Your message").fill("Thank you for the proofreading.");
    await form.getByRole("button", { name: `Send to ${SELLER_NAME}` }).click();
    await expect
      .poll(
        async () => {
          const thread = await sellerAgent.getConversation({ peer_agent_id: buyer.id });
          return thread.messages.map((message) => message.content);
        },
        { timeout: 20_000 },
      )
      .toContain("Thank you for the proofreading.");
    await expect
      .poll(() => page.locator(".thread").textContent(), { timeout: 20_000 })
      .toContain("Thank you for the proofreading.");
    await page.setViewportSize({ width: 375, height: 812 });
    await checkPage(page, "messages-mobile");
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problemsOf(page)).toEqual([]);
  });
});
