/**
 * A bounty's proposals in real Chromium pages: the poster's owner (dev account 15) posts a bounty
 * that takes proposals; an agent outside the web app pitches through the API; the hunter's owner
 * (account 14) sends a proposal from the listing page; the poster's owner accepts it on its own page
 * of the bounty, the other proposal is declined, and the escrow names the hunter's agent as seller.
 * Accounts 14 and 15 are shared with offers.test.ts: each file works with agents of its own.
 */
import { createMarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf, sessionClient } from "../e2e/dev-accounts.ts";
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

describe("proposals from the browser", () => {
  it("a hunter's owner pitches on the bounty's page; the poster's owner accepts it there; the other is declined", async () => {
    const posterOwner = await sessionClient(apiUrl, 15);
    const { agent: poster, api_key: posterKey } = await posterOwner.createOwnedAgent({ name: "docs-poster" });
    await api.requestTestUsdc({ address: poster.wallet_address, usdc_wei: "10000000" });
    const bounty = await createMarketplaceClient({ baseUrl: apiUrl, apiKey: posterKey }).createListing({
      agent_id: poster.id,
      title: "Write the API guide",
      description: "A guide to every route, with examples",
      category: "writing",
      listing_type: "BOUNTY",
      price_wei: "6000000",
      accepts_proposals: true,
    });
    expect(bounty.funding?.state).toBe("FUNDED");
    const outsider = createMarketplaceClient({ baseUrl: apiUrl });
    await outsider.registerAgent({ name: "docs-outsider" });
    await outsider.makeProposal({ id: bounty.id, pitch: "I write docs for a living", eta_hours: 48 });
    const hunterOwner = await sessionClient(apiUrl, 14);
    const { agent: hunter } = await hunterOwner.createOwnedAgent({ name: "docs-hunter" });

    // The hunter's owner sends a proposal from the bounty's page.
    const hunterVisit = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(14) },
    });
    const page = hunterVisit.page;
    await page.goto(`/listings/${bounty.id}`);
    await signInWithBrowserWallet(page);
    const panel = page.getByRole("region", { name: "Proposals" });
    expect(await page.getByRole("button", { name: "Claim" }).count()).toBe(0);
    await panel.getByLabel("Propose as").selectOption(hunter.id);
    await panel.getByLabel("Your pitch").fill("I wrote the SDK: I know every route");
    await panel.getByLabel("Hours you need (optional)").fill("24");
    await panel.getByRole("button", { name: "Send proposal" }).click();
    const mine = panel.getByTestId("proposal");
    await expect.poll(() => mine.getAttribute("data-status"), { timeout: 20_000 }).toBe("PENDING");
    expect(await mine.textContent()).toContain("needs 24 h");
    await checkPage(page, "listing-proposal-sent");

    // The poster's owner sees both on its bounty's page and accepts the hunter's.
    const posterVisit = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(15) },
    });
    const posterPage = posterVisit.page;
    await posterPage.goto(`/listings/${bounty.id}`);
    await signInWithBrowserWallet(posterPage);
    const received = posterPage.getByRole("region", { name: "Proposals" }).getByTestId("proposal");
    await expect.poll(() => received.count(), { timeout: 20_000 }).toBe(2);
    // The poster's own view of its bounty, with where to manage it.
    expect(await posterPage.getByTestId("seller-view").textContent()).toContain("Your bounty: it is on the market");
    const hunters = received.filter({ hasText: "docs-hunter" });
    expect(await hunters.textContent()).toContain("I wrote the SDK");
    await checkPage(posterPage, "listing-proposals-received");
    await hunters.getByRole("button", { name: "Accept" }).click();
    // The review: the reward's figures, and the other proposal declined with it.
    const sheet = posterPage.getByRole("dialog", { name: "Accept docs-hunter's proposal" });
    await expect.poll(() => sheet.textContent()).toContain("Reward (in escrow since you posted)6.00 USDC");
    expect(await sheet.textContent()).toContain("The other pending proposal is declined, and their agents told.");
    await checkPage(posterPage, "listing-proposal-accept-review");
    await sheet.getByRole("button", { name: "Cancel" }).click();
    expect(await hunters.getAttribute("data-status")).toBe("PENDING");
    expect((await api.listTransactions({ agent_id: hunter.id })).transactions).toEqual([]);
    await hunters.getByRole("button", { name: "Accept" }).click();
    await sheet.getByRole("button", { name: "Confirm: accept docs-hunter" }).click();
    await expect.poll(() => hunters.getAttribute("data-status"), { timeout: 30_000 }).toBe("ACCEPTED");
    await expect.poll(() => received.filter({ hasText: "docs-outsider" }).getAttribute("data-status")).toBe("DECLINED");

    // The escrow names the hunter's agent; its page lists the proposal, accepted.
    const { transactions } = await api.listTransactions({ agent_id: hunter.id });
    expect(transactions.map((transaction) => [transaction.amount_wei, transaction.state])).toEqual([
      ["6000000", "FUNDED"],
    ]);
    await page.goto(`/owner/agents/${hunter.id}`);
    const row = page.getByTestId("proposal-row");
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toContain("ACCEPTED");
    expect(await row.textContent()).toContain("Write the API guide");
    await checkPage(page, "owner-agent-proposals");
    for (const visit of [hunterVisit, posterVisit]) {
      expect(problemsOf(visit.page)).toEqual([]);
      await visit.context.close();
    }
  });
});
