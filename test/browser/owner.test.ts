/**
 * An owner in a real Chromium, with an injected wallet (the node's dev account 12): signs in with
 * Ethereum, creates a hosted agent and copies its key, posts a bounty from the agent's page; an agent
 * over the API claims and delivers; the owner sees the notification arrive live and releases the
 * payment; the balances the page shows are the chain's. And a new user without any browser wallet
 * signs in with the dev wallet (the node's account 13).
 */
import { createMarketplaceClient } from "@agent-marketplace/sdk";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf, usdcOnChain } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";
import { signInWithBrowserWallet, weiShown } from "./people.ts";

const { env, apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
const OWNER = devAddress(12);
const TITLE = "Label 300 wombat photos";
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("an owner in the browser", () => {
  it("creates a hosted agent, posts a bounty, watches it delivered live and releases the payment", async () => {
    const { page, context } = await freshPage(browser, apiUrl, { wallet: { rpcUrl: rpcUrlOf(env), account: OWNER } });
    await page.goto("/owner");
    await signInWithBrowserWallet(page);
    await expect.poll(() => page.locator("main").textContent()).toContain("You have no agents yet");
    await checkPage(page, "owner-empty");

    // A hosted agent; its key is shown once, in a dialog that holds until the owner saved it.
    const create = page.getByRole("region", { name: "Create a hosted agent" });
    await create.getByLabel("Name").fill("wombat-poster");
    await create.getByLabel("Bio").fill("Posts labelling bounties");
    await create.getByRole("button", { name: "Create hosted agent" }).click();
    const key = (await page.getByTestId("new-api-key").textContent({ timeout: 20_000 })) ?? "";
    expect(key).toMatch(/^\S{20,}$/);
    const reveal = page.getByRole("dialog", { name: "The API key of wombat-poster" });
    await reveal.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => reveal.getByText("Copied to the clipboard.").count()).toBe(1);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    const agent = await createMarketplaceClient({ baseUrl: apiUrl, apiKey: key }).getMe();
    expect(agent.name).toBe("wombat-poster");
    await checkPage(page, "owner-new-key");
    await reveal.getByLabel("I have saved this key").check();
    await reveal.getByRole("button", { name: "Done" }).click();
    await expect.poll(() => page.getByTestId("new-api-key").count()).toBe(0);

    // Test USDC for the agent from its card (local chain): 100 USDC, as the chain counts it.
    const card = page.getByTestId("owned-agent").filter({ hasText: "wombat-poster" });
    await card.getByRole("button", { name: "Get test USDC" }).click();
    await expect.poll(() => card.getByText("Minted").count(), { timeout: 20_000 }).toBe(1);
    expect(await usdcOnChain(env, agent.wallet_address)).toBe(100_000_000n);
    await expect.poll(() => weiShown(page, "usdc-balance"), { timeout: 20_000 }).toBe(100_000_000n);

    // The agent's page: the bounty, funded from its wallet.
    await page.goto(`/owner/agents/${agent.id}`);
    await expect.poll(() => page.getByText("● Live").count(), { timeout: 20_000 }).toBe(1);
    await page.getByLabel(/A bounty/).check();
    await page.getByLabel("Title").fill(TITLE);
    await page.getByLabel("Description").fill("Draw a box around every wombat");
    await page.getByLabel("Reward (USDC)").fill("3");
    await page.getByRole("button", { name: "Post bounty" }).click();
    // The review: the reward leaves the agent's balance at once.
    await page.getByRole("button", { name: "Confirm: post and fund 3.00 USDC" }).click();
    await expect.poll(() => page.getByText("the reward is in escrow").count(), { timeout: 30_000 }).toBe(1);
    await checkPage(page, "owner-agent");

    // Another agent, over the API, claims and delivers; the notification arrives without a reload.
    const worker = createMarketplaceClient({ baseUrl: apiUrl });
    const { agent: workerAgent } = await worker.registerAgent({ name: "wombat-worker" });
    const { listings } = await api.browseListings({ keyword: "wombat", listing_type: "BOUNTY" });
    const bounty = listings.find((listing) => listing.title === TITLE);
    expect(bounty).toBeDefined();
    const claimed = await worker.claimListing({ id: bounty?.id as string, agent_id: workerAgent.id });
    const transactionId = claimed.transaction_id as string;
    await worker.deliverWork({ id: transactionId, deliverable: "300 boxes drawn" });
    await expect
      .poll(() => page.getByTestId("notification").filter({ hasText: "Work delivered" }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);

    // The owner releases the payment from the transaction's page.
    await page.goto(`/owner/transactions/${transactionId}?agent=${agent.id}`);
    // It reviews the release first: the 3 USDC, the platform fee, what the worker receives.
    await page.getByRole("button", { name: "Release payment" }).click();
    const sheet = page.getByRole("dialog", { name: "Release the payment to wombat-worker?" });
    await expect.poll(() => sheet.getByTestId("review-sheet").textContent()).toContain("Platform fee");
    await sheet.getByRole("button", { name: "Confirm release" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Payment released" }).count(), { timeout: 30_000 })
      .toBe(1);
    await expect.poll(async () => (await api.getTransaction({ id: transactionId })).state).toBe("RELEASED");
    await checkPage(page, "owner-transaction");

    // The balances shown are the chain's.
    await page.goto("/owner");
    await expect.poll(() => page.getByTestId("usdc-balance").count()).toBe(1);
    const onChain = await usdcOnChain(env, agent.wallet_address);
    expect(onChain, "100 minted, 3 paid to the worker").toBe(97_000_000n);
    await expect.poll(() => weiShown(page, "usdc-balance")).toBe(onChain);
    expect(await usdcOnChain(env, workerAgent.wallet_address)).toBeGreaterThan(0n);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("signs in without a browser wallet, with the dev wallet of the local chain", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    await page.goto("/owner");
    await page.getByRole("button", { name: "Sign in", exact: true }).first().click();
    await expect.poll(() => page.getByText("No browser wallet was found").count()).toBe(1);
    await page.getByLabel("Dev account").selectOption(devAddress(13));
    await checkPage(page, "sign-in-dev-wallet");
    // The node's #3 is Person 1 (0 to 2 hold the platform's roles): #13 is Person 11.
    await page.getByRole("button", { name: "Sign in as Person 11", exact: true }).click();
    await expect.poll(() => page.getByText("Signed in as").count(), { timeout: 20_000 }).toBe(1);
    const session = await page.evaluate(() => fetch("/api/auth/session").then((response) => response.json()));
    expect(session.address.toLowerCase()).toBe(devAddress(13).toLowerCase());
    // The session is an HttpOnly cookie: the page's scripts cannot read it, nor find it stored; they
    // see only the hint that there is a session to ask about.
    expect(await page.evaluate(() => document.cookie)).toBe("am_signed_in=1");
    expect(
      await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })),
    ).not.toMatch(/sess_/);
    const [cookie] = (await context.cookies()).filter((c) => c.name === "am_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    // A reload finds the session again; signing out takes both cookies away.
    await page.reload();
    await expect.poll(() => page.getByText("Signed in as").count(), { timeout: 20_000 }).toBe(1);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Sign in", exact: true }).count()).toBeGreaterThan(0);
    expect(await context.cookies()).toEqual([]);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });
});
