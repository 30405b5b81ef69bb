import { randomBytes } from "node:crypto";
import { agentEscrowAbi, EscrowStatus, escrowIdOfTransaction, mockUsdcAbi } from "@agent-marketplace/contracts";
import { and, eq, inArray, sql } from "drizzle-orm";
import { type Address, erc20Abi, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fundAccounts, type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  patch,
  post,
  registerAgent,
  registerWithWallet,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { relayedTransactions, transactions } from "../../db/schema.ts";

/*
 * Buying a FIXED listing, on the suite's real chain: a hosted buyer funded by the relayer, an
 * external buyer who sends the calls itself and hands in the tx_hash, and every refusal.
 * Dev accounts 8-10 are this file's own (see test/escrow.ts).
 */
const EXTERNAL_BUYER = 8;
const SELLER = 9;
const STRANGER = 10;
const PRICE = 2_500_000n;

let t: TestApp;
let market: Market;
let seller: { id: string; key: string };
let listing: { id: string };
let externalBuyer: { id: string; key: string };

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  const tag = randomBytes(3).toString("hex");
  seller = await registerWithWallet(t.app, `seller ${tag}`, market.address(SELLER));
  externalBuyer = await registerWithWallet(t.app, `buyer ${tag}`, market.address(EXTERNAL_BUYER));
  await fundAccounts(market, [EXTERNAL_BUYER, STRANGER], 1_000n * USDC);
  listing = await createListing(t.app, seller, { title: "Audit", price_wei: PRICE.toString() });
});
afterAll(() => t.close());

async function usdcOf(address: Address): Promise<bigint> {
  return market.publicClient.readContract({
    address: market.usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address],
  });
}

/** The on-chain status of the escrow `buyer` funded for `transactionId` (its id is derived from the buyer). */
async function escrowStatus(transactionId: string, buyer: Address): Promise<number> {
  const [status] = await market.publicClient.readContract({
    address: market.escrow,
    abi: agentEscrowAbi,
    functionName: "escrowState",
    args: [escrowIdOfTransaction(buyer, transactionId)],
  });
  return status;
}

/** A hosted agent holding `usdc` wei of USDC (minted by the open MockUSDC faucet). */
async function hostedBuyer(usdc: bigint) {
  const response = await post(t.app, "/api/agents/register", { name: "hosted buyer", hosted: true });
  const body = await json(response);
  if (usdc > 0n) await market.send(STRANGER, market.usdc, mockUsdcAbi, "mint", [body.agent.wallet_address, usdc]);
  return { id: body.agent.id as string, key: body.api_key as string, wallet: body.agent.wallet_address as Address };
}

async function transactionCount(): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.transactions`);
  return rows[0]?.n ?? 0;
}

/** The listing's times_purchased, as its page shows it. */
async function timesPurchased(listingId: string): Promise<number> {
  return (await json(await get(t.app, `/api/listings/${listingId}`))).times_purchased;
}

describe("a hosted buyer", () => {
  it("gets a funded escrow, visible at once, paid from its wallet without ETH", async () => {
    const buyer = await hostedBuyer(10n * USDC);
    const escrowBefore = await usdcOf(market.escrow);
    // Deadlines count from the chain's clock (other tests move it ahead of the wall clock).
    const startedAt = Math.max(await market.now(), Math.floor(Date.now() / 1000));
    const response = await post(t.app, `/api/listings/${listing.id}/buy`, { deadline_hours: 48 }, buyer.key);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({
      escrow_id: body.transaction_id,
      escrow_id_bytes32: escrowIdOfTransaction(buyer.wallet, body.transaction_id),
      amount_wei: PRICE.toString(),
      currency: "USDC",
      state: "FUNDED",
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const deadline = Date.parse(body.deadline) / 1000;
    expect(deadline - startedAt).toBeGreaterThanOrEqual(48 * 3600);
    expect(deadline - startedAt).toBeLessThanOrEqual(48 * 3600 + 30);
    // Read-your-writes: the next read shows the funded escrow.
    const detail = await json(await get(t.app, `/api/transactions/${body.transaction_id}`));
    expect(detail).toMatchObject({ state: "FUNDED", buyer: { id: buyer.id }, seller: { id: seller.id } });
    // The money moved on chain: from the buyer's wallet into the escrow; the buyer paid no gas.
    expect(await escrowStatus(body.transaction_id, buyer.wallet)).toBe(EscrowStatus.Funded);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - PRICE);
    expect(await usdcOf(market.escrow)).toBe(escrowBefore + PRICE);
    expect(await market.publicClient.getBalance({ address: buyer.wallet })).toBe(0n);
  });

  it("is answered 402 with the shortfall when its balance is short, and nothing is created", async () => {
    const buyer = await hostedBuyer(PRICE - 1n);
    const before = await transactionCount();
    const response = await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key);
    expect(response.status).toBe(402);
    expect(await json(response)).toMatchObject({
      code: "insufficient_balance",
      required_wei: PRICE.toString(),
      balance_wei: (PRICE - 1n).toString(),
      shortfall_wei: "1",
      wallet_address: buyer.wallet,
      chain_id: market.chainId,
      token: market.usdc,
    });
    expect(await transactionCount()).toBe(before);
    expect(await usdcOf(buyer.wallet)).toBe(PRICE - 1n);
  });

  it("20 buyers buy the same listing at once: 20 escrows, each funded once, no relayer nonce collides", async () => {
    // Set up one by one: the test's own minting sends from one dev account.
    const buyers: Awaited<ReturnType<typeof hostedBuyer>>[] = [];
    for (let i = 0; i < 20; i++) buyers.push(await hostedBuyer(PRICE));
    const purchasedBefore = await timesPurchased(listing.id);
    const answers = await Promise.all(
      buyers.map(async (buyer) => ({
        status: (await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key)).status,
        buyer,
      })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    for (const { buyer } of answers) expect(await usdcOf(buyer.wallet)).toBe(0n);
    const relayed = await t.db
      .select({ nonce: relayedTransactions.nonce, status: relayedTransactions.status })
      .from(relayedTransactions)
      .innerJoin(transactions, eq(transactions.id, relayedTransactions.transactionId))
      .where(
        and(
          eq(relayedTransactions.purpose, "fund"),
          inArray(
            transactions.buyerAgentId,
            buyers.map((buyer) => buyer.id),
          ),
        ),
      );
    expect(relayed).toHaveLength(20);
    expect(relayed.every((row) => row.status === "mined")).toBe(true);
    expect(new Set(relayed.map((row) => row.nonce)).size).toBe(20);
    expect(await timesPurchased(listing.id)).toBe(purchasedBefore + 20);
  });

  it("two buys at once are two escrows, each funded once", async () => {
    const buyer = await hostedBuyer(10n * USDC);
    const answers = await Promise.all(
      [1, 2].map(async () => json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key))),
    );
    expect(new Set(answers.map((answer: { transaction_id: string }) => answer.transaction_id)).size).toBe(2);
    expect(answers.every((answer: { state: string }) => answer.state === "FUNDED")).toBe(true);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - 2n * PRICE);
  });
});

describe("an external buyer", () => {
  /** Sends the instructions' calls from the buyer's own wallet; returns the last receipt's hash. */
  async function sendCalls(calls: { to: Address; data: Hex }[], from = EXTERNAL_BUYER): Promise<Hex> {
    const wallet = market.accounts[from]?.wallet;
    if (!wallet) throw new Error("no wallet");
    let hash: Hex = "0x";
    for (const call of calls) {
      hash = await wallet.sendTransaction({ to: call.to, data: call.data });
      await market.publicClient.waitForTransactionReceipt({ hash });
    }
    return hash;
  }

  it("gets exact calls, sends them, and completes with the tx_hash: FUNDED, once", async () => {
    const first = await post(t.app, `/api/listings/${listing.id}/buy`, { deadline_hours: 24 }, externalBuyer.key);
    expect(first.status).toBe(201);
    const pending = await json(first);
    expect(pending).toMatchObject({
      state: "PENDING",
      contract_address: market.escrow,
      seller_address: market.address(SELLER),
      amount_wei: PRICE.toString(),
      deadline_hours: 24,
      instructions: { chain_id: market.chainId, contract_address: market.escrow, token_address: market.usdc },
    });
    expect(pending.instructions.calls.map((call: { to: string }) => call.to)).toEqual([market.usdc, market.escrow]);
    expect(pending.instructions.gasless.typed_data).toMatchObject({
      primaryType: "ReceiveWithAuthorization",
      message: { from: market.address(EXTERNAL_BUYER), to: market.escrow, value: PRICE.toString() },
    });
    expect((await json(await get(t.app, `/api/transactions/${pending.transaction_id}`))).state).toBe("PENDING");

    const purchasedBefore = await timesPurchased(listing.id);
    const txHash = await sendCalls(pending.instructions.calls);
    const second = await post(t.app, `/api/listings/${listing.id}/buy`, { tx_hash: txHash }, externalBuyer.key);
    expect(second.status).toBe(200);
    expect(await json(second)).toMatchObject({
      transaction_id: pending.transaction_id,
      state: "FUNDED",
      tx_hash: txHash,
    });
    expect((await json(await get(t.app, `/api/transactions/${pending.transaction_id}`))).state).toBe("FUNDED");

    // The same hash again is a replay.
    const replay = await post(t.app, `/api/listings/${listing.id}/buy`, { tx_hash: txHash }, externalBuyer.key);
    expect(replay.status).toBe(409);
    expect(await json(replay)).toMatchObject({ transaction_id: pending.transaction_id });
    // Counted once, when its funding was accepted.
    expect(await timesPurchased(listing.id)).toBe(purchasedBefore + 1);
  });

  it("buys an accepted offer at its price: a retried buy answers the same instructions; funded once, then refused", async () => {
    const negotiable = await createListing(t.app, seller, { title: "Negotiable audit", price_wei: PRICE.toString() });
    const made = await post(
      t.app,
      `/api/listings/${negotiable.id}/offers`,
      { price_wei: "2000000" },
      externalBuyer.key,
    );
    const offerId = (await json(made)).offer.id;
    expect((await post(t.app, `/api/offers/${offerId}/accept`, {}, seller.key)).status).toBe(200);
    const buy = (body: Record<string, unknown>) =>
      post(t.app, `/api/listings/${negotiable.id}/buy`, body, externalBuyer.key);

    const first = await json(await buy({ offer_id: offerId }));
    expect(first).toMatchObject({ state: "PENDING", amount_wei: "2000000", deadline_hours: 72 });
    // The buyer lost the answer and asks again: the same purchase, the same calls; no second row.
    const retried = await json(await buy({ offer_id: offerId }));
    expect(retried).toMatchObject({
      transaction_id: first.transaction_id,
      amount_wei: "2000000",
      deadline: first.deadline,
    });
    expect(retried.instructions.calls).toEqual(first.instructions.calls);
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.transactions WHERE listing_id = ${negotiable.id}`,
    );
    expect(rows[0]?.n).toBe(1);

    const before = await usdcOf(market.address(EXTERNAL_BUYER));
    const txHash = await sendCalls(retried.instructions.calls);
    expect(await json(await buy({ tx_hash: txHash }))).toMatchObject({
      transaction_id: first.transaction_id,
      state: "FUNDED",
    });
    expect(await usdcOf(market.address(EXTERNAL_BUYER))).toBe(before - 2_000_000n);
    // Funded: the offer is bought, and a buy naming it again is refused.
    const again = await buy({ offer_id: offerId });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ code: "offer_not_accepted", transaction_id: first.transaction_id });
  });

  it("a wrong, failed or foreign tx_hash is refused and changes nothing", async () => {
    const pending = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, externalBuyer.key));
    const buy = (txHash: string) =>
      post(t.app, `/api/listings/${listing.id}/buy`, { tx_hash: txHash }, externalBuyer.key);
    const [row] = await t.db.select().from(transactions).where(eq(transactions.id, pending.transaction_id));
    const purchasedBefore = await timesPurchased(listing.id);

    // Unknown hash.
    expect((await buy(`0x${randomBytes(32).toString("hex")}`)).status).toBe(400);
    // A real transaction that funded nothing (the approve alone).
    const approveOnly = await sendCalls(pending.instructions.calls.slice(0, 1));
    expect((await buy(approveOnly)).status).toBe(400);
    // A transaction that reverted: the fund call sent twice, the second finds the id taken.
    const wallet = market.accounts[EXTERNAL_BUYER]?.wallet;
    if (!wallet) throw new Error("no wallet");
    const fundCall = pending.instructions.calls[1];
    const funding = await sendCalls([fundCall]);
    // Hardhat refuses a reverting transaction when it mines on send: mine this one by hand.
    await market.testClient.setAutomine(false);
    let reverted: Hex;
    try {
      reverted = await wallet.sendTransaction({ to: fundCall.to, data: fundCall.data, gas: 300_000n });
      await market.testClient.mine({ blocks: 1 });
    } finally {
      await market.testClient.setAutomine(true);
    }
    expect((await market.publicClient.waitForTransactionReceipt({ hash: reverted })).status).toBe("reverted");
    expect((await buy(reverted)).status).toBe(400);
    // A foreign funding: the stranger funds another escrow of its own.
    const foreignCalls = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, externalBuyer.key));
    const foreign = await sendCalls(foreignCalls.instructions.calls, EXTERNAL_BUYER);
    const otherBuyer = await registerAgent(t.app, "other buyer");
    expect((await post(t.app, `/api/listings/${listing.id}/buy`, { tx_hash: foreign }, otherBuyer.key)).status).toBe(
      400,
    );
    // The row is unchanged by the refusals; the valid funding still completes.
    const [after] = await t.db.select().from(transactions).where(eq(transactions.id, pending.transaction_id));
    expect(after).toEqual(row);
    expect(await timesPurchased(listing.id)).toBe(purchasedBefore);
    expect((await buy(funding)).status).toBe(200);
    expect(await timesPurchased(listing.id)).toBe(purchasedBefore + 1);
  });
});

describe("refusals", () => {
  it("another agent's buyer_agent_id is 403; no key is 401", async () => {
    const buyer = await hostedBuyer(10n * USDC);
    const before = await transactionCount();
    const forbidden = await post(
      t.app,
      `/api/listings/${listing.id}/buy`,
      { buyer_agent_id: externalBuyer.id },
      buyer.key,
    );
    expect(forbidden.status).toBe(403);
    expect((await post(t.app, `/api/listings/${listing.id}/buy`, {})).status).toBe(401);
    expect(await transactionCount()).toBe(before);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC);
  });

  it("own listing 400, bounty 400, inactive 409, unknown 404, bad bodies 400", async () => {
    const before = await transactionCount();
    const buy = (id: string, body: unknown, key = externalBuyer.key) =>
      post(t.app, `/api/listings/${id}/buy`, body, key);
    expect((await buy(listing.id, {}, seller.key)).status).toBe(400);
    const bounty = await t.db.execute<{ id: string }>(
      sql`INSERT INTO app.listings (agent_id, title, description, category, listing_type, price_wei) VALUES (${seller.id}, 'b', 'b', 'other', 'BOUNTY', '1000') RETURNING id`,
    );
    expect((await buy(bounty.rows[0]?.id as string, {})).status).toBe(400);
    const inactive = await createListing(t.app, seller, { title: "Retired" });
    await t.db.execute(sql`UPDATE app.listings SET is_active = false WHERE id = ${inactive.id}`);
    expect((await buy(inactive.id, {})).status).toBe(409);
    expect((await buy("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", {})).status).toBe(404);
    expect((await buy("not-a-uuid", {})).status).toBe(404);
    for (const body of [
      { deadline_hours: 0 },
      { deadline_hours: 721 },
      { deadline_hours: "24" },
      { deadline_hours: 1.5 },
      { tx_hash: "0x1234" },
      { buyer_agent_id: 42 },
      { buyer_agent_id: "nope" },
    ]) {
      const response = await buy(listing.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect(await transactionCount()).toBe(before);
  });
});

describe("the price guard: expected_price_wei", () => {
  it("a price changed since the buyer looked is 409 price_changed with the current price, and nothing is sent", async () => {
    const changing = await createListing(t.app, seller, { title: "Repricing", price_wei: USDC.toString() });
    const buyer = await hostedBuyer(100n * USDC);
    const raised = await patch(
      t.app,
      `/api/listings/${changing.id}`,
      { price_wei: (50n * USDC).toString() },
      seller.key,
    );
    expect(raised.status).toBe(200);
    const before = { rows: await transactionCount(), sends: await relayedCount(), balance: await usdcOf(buyer.wallet) };

    const response = await post(
      t.app,
      `/api/listings/${changing.id}/buy`,
      { expected_price_wei: USDC.toString() },
      buyer.key,
    );
    expect(response.status).toBe(409);
    expect(await json(response)).toMatchObject({
      code: "price_changed",
      expected_price_wei: USDC.toString(),
      current_price_wei: (50n * USDC).toString(),
      error: expect.stringContaining("50.00 USDC"),
    });
    expect(await transactionCount(), "no purchase row").toBe(before.rows);
    expect(await relayedCount(), "nothing sent").toBe(before.sends);
    expect(await usdcOf(buyer.wallet), "no money moved").toBe(before.balance);
    expect(await timesPurchased(changing.id)).toBe(0);

    // At the price it now shows, the buy goes through and charges exactly that.
    const bought = await post(
      t.app,
      `/api/listings/${changing.id}/buy`,
      { expected_price_wei: (50n * USDC).toString() },
      buyer.key,
    );
    expect(bought.status).toBe(200);
    expect(await json(bought)).toMatchObject({ state: "FUNDED", amount_wei: (50n * USDC).toString() });
    expect(await usdcOf(buyer.wallet)).toBe(before.balance - 50n * USDC);
  });

  it("an external buyer's changed price is refused before any instructions or row", async () => {
    const changing = await createListing(t.app, seller, { title: "Repricing 2", price_wei: USDC.toString() });
    await patch(t.app, `/api/listings/${changing.id}`, { price_wei: (2n * USDC).toString() }, seller.key);
    const before = await transactionCount();
    const response = await post(
      t.app,
      `/api/listings/${changing.id}/buy`,
      { expected_price_wei: USDC.toString() },
      externalBuyer.key,
    );
    expect(response.status).toBe(409);
    expect((await json(response)).code).toBe("price_changed");
    expect(await transactionCount()).toBe(before);
    // The same price is no refusal: the first call answers the instructions.
    const pending = await post(
      t.app,
      `/api/listings/${changing.id}/buy`,
      { expected_price_wei: (2n * USDC).toString() },
      externalBuyer.key,
    );
    expect(pending.status).toBe(201);
  });

  it("an accepted offer is bought at its price: the listing's price expected there is 409, nothing sent", async () => {
    const negotiable = await createListing(t.app, seller, { title: "Haggle", price_wei: (3n * USDC).toString() });
    const buyer = await hostedBuyer(10n * USDC);
    const made = await json(
      await post(t.app, `/api/listings/${negotiable.id}/offers`, { price_wei: (2n * USDC).toString() }, buyer.key),
    );
    const offerId = made.offer?.id ?? made.id;
    expect((await post(t.app, `/api/offers/${offerId}/accept`, {}, seller.key)).status).toBe(200);
    const before = await relayedCount();
    const atListingPrice = await post(
      t.app,
      `/api/listings/${negotiable.id}/buy`,
      { offer_id: offerId, expected_price_wei: (3n * USDC).toString() },
      buyer.key,
    );
    expect(atListingPrice.status).toBe(409);
    expect(await json(atListingPrice)).toMatchObject({
      code: "price_changed",
      current_price_wei: (2n * USDC).toString(),
    });
    expect(await relayedCount()).toBe(before);
    const atOfferPrice = await post(
      t.app,
      `/api/listings/${negotiable.id}/buy`,
      { offer_id: offerId, expected_price_wei: (2n * USDC).toString() },
      buyer.key,
    );
    expect(atOfferPrice.status).toBe(200);
    expect(await usdcOf(buyer.wallet)).toBe(8n * USDC);
  });

  it("an expected price that is not an amount is 400 and changes nothing", async () => {
    const before = await transactionCount();
    // A whole number of wei as a JSON number is an amount (the live service's clients send them): not these.
    for (const bad of ["-1", "1.5", 1.5, -1, 2 ** 53, "", "0x10", `${"9".repeat(80)}`]) {
      const response = await post(
        t.app,
        `/api/listings/${listing.id}/buy`,
        { expected_price_wei: bad },
        externalBuyer.key,
      );
      expect(response.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await transactionCount()).toBe(before);
  });
});

async function relayedCount(): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.relayed_transactions`);
  return rows[0]?.n ?? 0;
}
