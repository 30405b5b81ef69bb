/**
 * An owner in a real Chromium caps a hosted agent's spending on the agent's page (the node's dev
 * account 16 signs in); the agent, over the API, buys above the approval threshold and its purchase
 * waits; the owner reviews it and approves it into a FUNDED escrow, declines another (nothing
 * moves), and a purchase over the per-purchase cap is refused at once. The overview of the owner's
 * agents counts what waits for approval and leads to it. Balances are the chain's.
 */
import { AwaitingApprovalError, createMarketplaceClient, MarketplaceError } from "@agent-marketplace/sdk";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress, rpcUrlOf, sessionClient, usdcOnChain } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";
import { signInWithBrowserWallet, weiShown } from "./people.ts";

const { env, apiUrl } = inject("sharedStack");
const api = createMarketplaceClient({ baseUrl: apiUrl });
const OWNER = 16;
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** What a call threw (or undefined if it answered). */
const thrown = (call: Promise<unknown>) => call.then(() => undefined).catch((error: unknown) => error);

describe("an owner caps a hosted agent's spending in the browser", () => {
  it("sets the caps; approves a purchase that waited after reviewing it, declines another; a purchase over a cap is refused", async () => {
    const owner = await sessionClient(apiUrl, OWNER);
    const created = await owner.createOwnedAgent({ name: "capped-buyer", bio: "Buys beetle photos" });
    const agent = createMarketplaceClient({ baseUrl: apiUrl, apiKey: created.api_key });
    const wallet = created.agent.wallet_address;
    await api.requestTestUsdc({ address: wallet, usdc_wei: "20000000" });
    const seller = createMarketplaceClient({ baseUrl: apiUrl });
    const { agent: sellerAgent } = await seller.registerAgent({ name: "beetle-photographer" });
    const listingAt = (priceWei: string) =>
      seller.createListing({
        agent_id: sellerAgent.id,
        title: `Index beetle photos (${priceWei})`,
        description: "40 photos, tagged by species",
        price_wei: priceWei,
      });
    const listing = await listingAt("3000000");

    const { page, context } = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(OWNER) },
    });
    await page.goto(`/owner/agents/${created.agent.id}`);
    await signInWithBrowserWallet(page);
    const caps = page.getByRole("form", { name: "Spending caps" });
    await caps.getByLabel("Most one move may spend (USDC)").fill("5");
    await caps.getByLabel("Most it may spend in 24 hours (USDC)").fill("8");
    await caps.getByLabel("Ask me to approve moves above (USDC)").fill("2");
    await caps.getByRole("button", { name: "Save the caps" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Spending caps saved" }).count()).toBe(1);
    expect(await agent.getMySpendingLimits()).toMatchObject({
      per_purchase_wei: "5000000",
      per_day_wei: "8000000",
      approval_above_wei: "2000000",
      spent_24h_wei: "0",
    });
    // The agent's own key cannot raise them.
    const raised = await thrown(
      agent.setAgentSpendingLimits({
        id: created.agent.id,
        per_purchase_wei: null,
        per_day_wei: null,
        approval_above_wei: null,
      }),
    );
    expect(raised).toBeInstanceOf(MarketplaceError);
    expect((raised as MarketplaceError).status).toBe(403);
    await checkPage(page, "owner-spending-caps");

    // The agent buys above the threshold: nothing is paid, the purchase waits for the owner.
    const waiting = await thrown(agent.buyListing({ id: listing.id, expected_price_wei: "3000000" }));
    expect(waiting).toBeInstanceOf(AwaitingApprovalError);
    expect(await usdcOnChain(env, wallet)).toBe(20_000_000n);
    await page.reload();
    const pending = page.getByTestId("pending-approval");
    await expect.poll(() => pending.count(), { timeout: 20_000 }).toBe(1);
    await pending.getByRole("button", { name: "Review and approve" }).click();
    const sheet = page.getByRole("dialog", { name: "Review the approval" });
    await expect.poll(() => sheet.getByTestId("review-sheet").textContent()).toContain("balance after");
    expect(await sheet.getByTestId("review-sheet").textContent()).toContain("3.00 USDC");
    await checkPage(page, "owner-approval-review");
    await sheet.getByRole("button", { name: "Confirm: approve 3.00 USDC" }).click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Approved and carried out" }).count(), { timeout: 30_000 })
      .toBe(1);
    expect(await usdcOnChain(env, wallet)).toBe(17_000_000n);
    const [approved] = (await owner.listSpendingApprovals({ agent_id: created.agent.id })).approvals;
    expect(approved).toMatchObject({ state: "approved", action: "buy", amount_wei: "3000000" });
    const transactionId = (approved?.result as { transaction_id: string } | undefined)?.transaction_id ?? "";
    expect((await api.getTransaction({ id: transactionId })).state).toBe("FUNDED");
    await expect.poll(() => pending.count()).toBe(0);

    // Another waits; declined, nothing moves.
    expect(await thrown(agent.buyListing({ id: listing.id, expected_price_wei: "3000000" }))).toBeInstanceOf(
      AwaitingApprovalError,
    );
    await page.reload();
    await expect.poll(() => pending.count(), { timeout: 20_000 }).toBe(1);
    await pending.getByRole("button", { name: "Decline" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Declined" }).count()).toBe(1);
    await expect.poll(() => pending.count()).toBe(0);
    expect(await usdcOnChain(env, wallet)).toBe(17_000_000n);

    // Over the per-purchase cap: refused at once, nothing paid.
    const refused = await thrown(
      agent.buyListing({ id: (await listingAt("6000000")).id, expected_price_wei: "6000000" }),
    );
    expect(refused).toBeInstanceOf(MarketplaceError);
    expect((refused as MarketplaceError).body).toMatchObject({ code: "spending_limit", limit: "per_purchase" });
    expect(await usdcOnChain(env, wallet)).toBe(17_000_000n);

    // The page counts what the day spent: the approved 3 USDC.
    await page.reload();
    await expect.poll(() => weiShown(page, "spending-figures"), { timeout: 20_000 }).toBe(3_000_000n);
    await page.getByText("Recent decisions").click();
    await expect.poll(() => page.getByTestId("decided-approval").count()).toBe(2);
    await checkPage(page, "owner-spending-approvals");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });
});

describe("the owner's overview", () => {
  it("says on each agent how many of its moves wait for approval, and leads to them", async () => {
    // An agent of its own: the first test's agent has spent most of its minute's request budget
    // (each page of an owned agent reads a dozen things with its X-Agent-Id).
    const owner = await sessionClient(apiUrl, OWNER);
    const created = await owner.createOwnedAgent({ name: "waiting-buyer", bio: "Buys maps" });
    const agent = createMarketplaceClient({ baseUrl: apiUrl, apiKey: created.api_key });
    await api.requestTestUsdc({ address: created.agent.wallet_address, usdc_wei: "10000000" });
    await owner.setAgentSpendingLimits({
      id: created.agent.id,
      per_purchase_wei: null,
      per_day_wei: null,
      approval_above_wei: "1000000",
    });
    const seller = createMarketplaceClient({ baseUrl: apiUrl });
    const { agent: sellerAgent } = await seller.registerAgent({ name: "map-maker" });
    for (const title of ["Draw a map of the bay", "Draw a map of the hills"]) {
      const listing = await seller.createListing({
        agent_id: sellerAgent.id,
        title,
        description: "A hand-drawn map",
        price_wei: "2000000",
      });
      const waiting = await thrown(agent.buyListing({ id: listing.id, expected_price_wei: "2000000" }));
      expect(waiting).toBeInstanceOf(AwaitingApprovalError);
    }

    const { page, context } = await freshPage(browser, apiUrl, {
      wallet: { rpcUrl: rpcUrlOf(env), account: devAddress(OWNER) },
    });
    await page.goto("/owner");
    await signInWithBrowserWallet(page);
    const card = page.getByTestId("owned-agent").filter({ hasText: "waiting-buyer" });
    await expect
      .poll(() => card.getByTestId("pending-approvals").textContent(), { timeout: 20_000 })
      .toBe("2 moves wait for your approval");
    await checkPage(page, "owner-overview-pending-approvals");
    await card.getByRole("link", { name: "2 moves wait for your approval" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/owner/agents/${created.agent.id}`);
    const pending = page.getByTestId("pending-approval");
    await expect.poll(() => pending.count(), { timeout: 20_000 }).toBe(2);
    await pending.first().getByRole("button", { name: "Decline" }).click();
    await expect.poll(() => pending.count(), { timeout: 20_000 }).toBe(1);
    // Back on the overview, one waits.
    await page.getByRole("link", { name: "My agents" }).click();
    await expect
      .poll(() => card.getByTestId("pending-approvals").textContent(), { timeout: 20_000 })
      .toBe("1 move waits for your approval");
    expect(await usdcOnChain(env, created.agent.wallet_address)).toBe(10_000_000n);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });
});
