import { mockUsdcAbi } from "@agent-marketplace/contracts";
import { sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fundAccounts, type Market, testMarket, USDC } from "../../../test/escrow.ts";
import { get, json, post, registerWithWallet, type TestApp, testApp, usdcBalance } from "../../../test/harness.ts";

/*
 * Direct escrows (POST /api/transactions) and the external buyer's confirmation, on the suite's
 * real chain: with a tx_hash, and gasless with an EIP-3009 signature the relayer submits.
 * Dev accounts 5 and 6 are this file's own (account 3 is the balance test's fixed reference).
 */
const EXTERNAL_BUYER = 5;
const EXTERNAL_SELLER = 6;
const AMOUNT = 3_000_000n;

let t: TestApp;
let market: Market;
let buyer: { id: string; key: string };
let seller: { id: string; key: string };

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  buyer = await registerWithWallet(t.app, "direct buyer", market.address(EXTERNAL_BUYER));
  seller = await registerWithWallet(t.app, "direct seller", market.address(EXTERNAL_SELLER));
  await fundAccounts(market, [EXTERNAL_BUYER], 1_000n * USDC);
});
afterAll(() => t.close());

const usdcOf = usdcBalance;
const stateOf = async (id: string) => (await json(await get(t.app, `/api/transactions/${id}`))).state;
const create = (body: Record<string, unknown>, key = buyer.key) =>
  post(
    t.app,
    "/api/transactions",
    { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: AMOUNT.toString(), ...body },
    key,
  );
const count = async () =>
  (await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.transactions`)).rows[0]?.n ?? 0;

describe("POST /api/transactions", () => {
  it("a hosted buyer's escrow is funded at once", async () => {
    const registered = await json(await post(t.app, "/api/agents/register", { name: "hosted", hosted: true }));
    const wallet = registered.agent.wallet_address as Address;
    await market.send(EXTERNAL_BUYER, market.usdc, mockUsdcAbi, "mint", [wallet, 5n * USDC]);
    const response = await post(
      t.app,
      "/api/transactions",
      {
        buyer_agent_id: registered.agent.id,
        seller_agent_id: seller.id,
        amount_wei: AMOUNT.toString(),
        description: "Logo",
      },
      registered.api_key,
    );
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({ state: "FUNDED", amount_wei: AMOUNT.toString(), currency: "USDC" });
    expect(await stateOf(body.transaction_id)).toBe("FUNDED");
    expect(await usdcOf(wallet)).toBe(5n * USDC - AMOUNT);
  });

  it("an external buyer funds gasless: signs the typed data, the relayer submits it", async () => {
    const created = await json(await create({ deadline_hours: 12 }));
    expect(created).toMatchObject({ state: "PENDING", seller_address: market.address(EXTERNAL_SELLER) });
    const typed = created.instructions.gasless.typed_data;
    const account = market.accounts[EXTERNAL_BUYER]?.account;
    if (!account?.signTypedData) throw new Error("no local account");
    const message = {
      ...typed.message,
      value: BigInt(typed.message.value),
      validAfter: BigInt(typed.message.validAfter),
      validBefore: BigInt(typed.message.validBefore),
    };
    const signature = await account.signTypedData({ ...typed, message });
    const ethBefore = await market.publicClient.getBalance({ address: market.address(EXTERNAL_BUYER) });
    const usdcBefore = await usdcOf(market.address(EXTERNAL_BUYER));
    const confirmed = await post(
      t.app,
      `/api/transactions/${created.transaction_id}/confirm`,
      { authorization: { signature, valid_after: "0", valid_before: typed.message.validBefore } },
      buyer.key,
    );
    expect(confirmed.status).toBe(200);
    expect(await json(confirmed)).toMatchObject({ state: "FUNDED", transaction_id: created.transaction_id });
    expect(await stateOf(created.transaction_id)).toBe("FUNDED");
    expect(await usdcOf(market.address(EXTERNAL_BUYER))).toBe(usdcBefore - AMOUNT);
    expect(await market.publicClient.getBalance({ address: market.address(EXTERNAL_BUYER) })).toBe(ethBefore);
  });

  it("an external buyer confirms with its tx_hash, once; a funded transaction is not confirmed again", async () => {
    const created = await json(await create({}));
    const wallet = market.accounts[EXTERNAL_BUYER]?.wallet;
    if (!wallet) throw new Error("no wallet");
    let hash: Hex = "0x";
    for (const call of created.instructions.calls) {
      hash = await wallet.sendTransaction({ to: call.to, data: call.data });
      await market.publicClient.waitForTransactionReceipt({ hash });
    }
    const confirm = () =>
      post(t.app, `/api/transactions/${created.transaction_id}/confirm`, { tx_hash: hash }, buyer.key);
    expect((await confirm()).status).toBe(200);
    const again = await confirm();
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ transaction_id: created.transaction_id });
    // Nor with a signature: it is FUNDED already.
    const signed = await post(
      t.app,
      `/api/transactions/${created.transaction_id}/confirm`,
      { authorization: { signature: `0x${"11".repeat(65)}`, valid_after: "0", valid_before: "1" } },
      buyer.key,
    );
    expect(signed.status).toBe(409);
    expect(await json(signed)).toMatchObject({ state: "FUNDED" });
  });

  it("a malformed or foreign signature is refused and nothing moves", async () => {
    const created = await json(await create({}));
    const before = await usdcOf(market.address(EXTERNAL_BUYER));
    const confirm = (signature: string) =>
      post(
        t.app,
        `/api/transactions/${created.transaction_id}/confirm`,
        { authorization: { signature, valid_after: "0", valid_before: "99999999999" } },
        buyer.key,
      );
    // Not a signature at all (v = 0x11).
    expect((await confirm(`0x${"11".repeat(65)}`)).status).toBe(400);
    // A well-formed signature by someone else: the token refuses it, the escrow is not funded.
    const stranger = market.accounts[EXTERNAL_SELLER]?.account;
    if (!stranger?.signTypedData) throw new Error("no local account");
    const typed = created.instructions.gasless.typed_data;
    const foreign = await stranger.signTypedData({
      ...typed,
      message: {
        ...typed.message,
        value: BigInt(typed.message.value),
        validAfter: 0n,
        validBefore: 99999999999n,
      },
    });
    const response = await confirm(foreign);
    expect(response.status).toBe(409);
    expect(await stateOf(created.transaction_id)).toBe("PENDING");
    expect(await usdcOf(market.address(EXTERNAL_BUYER))).toBe(before);
  });

  it("refuses bad requests with 400/402/403/404 and creates nothing", async () => {
    const before = await count();
    expect((await create({ buyer_agent_id: seller.id })).status).toBe(403);
    expect((await create({ seller_agent_id: buyer.id })).status).toBe(400);
    expect((await create({ seller_agent_id: "6f1c2e9a-3b4d-4c5e-8f70-123456789abc" })).status).toBe(404);
    // A whole number of wei may be a JSON number (the live service's clients send them): not these.
    for (const amount of ["0", "-1", "1.5", "abc", (2n ** 128n).toString(), "9".repeat(100), 5.5, -5, 2 ** 53, 0]) {
      expect((await create({ amount_wei: amount })).status, String(amount)).toBe(400);
    }
    for (const extra of [{ deadline_hours: 0 }, { deadline_hours: 721 }, { currency: "ETH" }, { description: 1 }]) {
      expect((await create(extra)).status, JSON.stringify(extra)).toBe(400);
    }
    const poor = await json(await post(t.app, "/api/agents/register", { name: "poor", hosted: true }));
    const refused = await post(
      t.app,
      "/api/transactions",
      { buyer_agent_id: poor.agent.id, seller_agent_id: seller.id, amount_wei: "1" },
      poor.api_key,
    );
    expect(refused.status).toBe(402);
    expect(await json(refused)).toMatchObject({ shortfall_wei: "1", balance_wei: "0" });
    expect(await count()).toBe(before);
  });

  it("confirm: only the buyer, exactly one proof", async () => {
    const created = await json(await create({}));
    const id = created.transaction_id;
    expect(
      (await post(t.app, `/api/transactions/${id}/confirm`, { tx_hash: `0x${"ab".repeat(32)}` }, seller.key)).status,
    ).toBe(403);
    expect((await post(t.app, `/api/transactions/${id}/confirm`, {}, buyer.key)).status).toBe(400);
    expect(
      (
        await post(
          t.app,
          `/api/transactions/${id}/confirm`,
          {
            tx_hash: `0x${"ab".repeat(32)}`,
            authorization: { signature: `0x${"11".repeat(65)}`, valid_after: "0", valid_before: "1" },
          },
          buyer.key,
        )
      ).status,
    ).toBe(400);
    expect(
      (await post(t.app, `/api/transactions/${id}/confirm`, { tx_hash: `0x${"ab".repeat(32)}` }, buyer.key)).status,
    ).toBe(400);
    expect(await stateOf(id)).toBe("PENDING");
  });
});
