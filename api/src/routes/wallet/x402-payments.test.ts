import { transferWithAuthorizationTypes } from "@agent-marketplace/contracts";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { eq } from "drizzle-orm";
import { type Address, getAddress, recoverTypedDataAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket } from "../../../test/escrow.ts";
import {
  createListing,
  json,
  newWallet,
  post,
  registerAgent,
  registerHosted,
  sessionOf,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";
import { clockAtChain, paymentRequiredOf, present, usdcOf } from "../../../test/x402.ts";
import { agentSpends, balanceReservations, transactions } from "../../db/schema.ts";
import { MAX_SIGNED_VALIDITY_SECONDS } from "../../domain/wallet/x402-signing.ts";

/*
 * x402 payments a hosted agent makes as a buyer (POST /api/wallet/x402-payments), on the suite's
 * real chain and Postgres: the service signs, with the agent's custodial key, the payment a 402 of
 * this marketplace's x402 endpoint asks for, and that payment funds the listing's escrow with the
 * hosted agent as its buyer; the owner's caps hold (per purchase, per day: a signed payment counts
 * whether used or not; above the approval threshold the owner's approval signs it); the balance
 * less the payments signed and not yet settled covers each one, also under 10 requests at once;
 * and every refusal signs nothing and records nothing.
 */
const PRICE = 1_000_000n;

let t: TestApp;
let market: Market;
let clock: { restore: () => void };
let owner: { address: Address; session: string };
let seller: { id: string; key: string };
let listingId: string;

beforeAll(async () => {
  t = await testApp({ rateLimitPerMinute: 100_000 });
  market = testMarket();
  clock = await clockAtChain(market);
  const wallet = newWallet();
  owner = { address: wallet.address, session: await sessionOf(t.app, wallet, t.config.chainId) };
  seller = await registerAgent(t.app, `x402 seller ${uniqueWord()}`);
  listingId = (await createListing(t.app, seller, { title: `Report ${uniqueWord()}`, price_wei: PRICE.toString() })).id;
});
afterAll(async () => {
  clock.restore();
  await t.close();
});

type Hosted = { id: string; key: string; wallet: Address };

/** A hosted agent of `owner` holding `balance`, with these caps (null: none). */
async function ownedAgent(balance: bigint, limits: Record<string, string | null> = {}): Promise<Hosted> {
  const created = await post(t.app, "/api/owner/agents", { name: `payer ${uniqueWord()}`, bio: "pays" }, owner.session);
  expect(created.status).toBe(201);
  const body = await json(created);
  const agent = { id: body.agent.id, key: body.api_key, wallet: getAddress(body.agent.wallet_address) };
  if (balance > 0n) {
    expect((await post(t.app, "/api/dev/faucet", { address: agent.wallet, usdc_wei: balance.toString() })).status).toBe(
      200,
    );
  }
  const set = await t.app.request(`/api/owner/agents/${agent.id}/limits`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${owner.session}` },
    body: JSON.stringify({ per_purchase_wei: null, per_day_wei: null, approval_above_wei: null, ...limits }),
  });
  expect(set.status, await set.clone().text()).toBe(200);
  return agent;
}

const sign = (credential: string, paymentRequired: unknown, agentId?: string) =>
  t.app.request("/api/wallet/x402-payments", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${credential}`,
      ...(agentId && { "X-Agent-Id": agentId }),
    },
    body: JSON.stringify({ payment_required: paymentRequired }),
  });

/** The listing's PAYMENT-REQUIRED header, as the agent received it. */
async function requiredHeader(): Promise<string> {
  const response = await t.app.request(`/api/listings/${listingId}/x402`);
  expect(response.status).toBe(402);
  return response.headers.get("payment-required") as string;
}

/** What the service recorded for `agent`: its spending rows and live reservations. */
async function recorded(agent: Hosted) {
  const [spends, reserved] = await Promise.all([
    t.db.select().from(agentSpends).where(eq(agentSpends.agentId, agent.id)),
    t.db.select().from(balanceReservations).where(eq(balanceReservations.walletAddress, agent.wallet)),
  ]);
  return { spends: spends.length, reservations: reserved.length };
}

describe("a hosted agent pays an x402 listing", () => {
  it("the service signs the 402's payment with the agent's key; presented, it funds the escrow with the agent as buyer", async () => {
    const agent = await ownedAgent(3n * PRICE);
    const header = await requiredHeader();
    const signed = await sign(agent.key, header);
    expect(signed.status, await signed.clone().text()).toBe(201);
    const body = await json(signed);
    expect(body).toMatchObject({
      header: "PAYMENT-SIGNATURE",
      x402_version: 2,
      payer: agent.wallet,
      pay_to: getAddress(market.escrow),
      amount_wei: PRICE.toString(),
      amount_usdc: "1.00",
      network: `eip155:${t.config.chainId}`,
      asset: getAddress(market.usdc),
      resource_url: expect.stringContaining(`/api/listings/${listingId}/x402`),
    });
    // What a stock client would send: the requirement echoed, an EIP-3009 authorization signed by the agent's key.
    const payload = decodePaymentSignatureHeader(body.payment_signature);
    const required = await paymentRequiredOf(t, listingId);
    expect(payload.accepted).toEqual(required.accepts[0]);
    const { authorization, signature } = payload.payload as {
      authorization: Record<string, string>;
      signature: `0x${string}`;
    };
    expect(authorization).toMatchObject({ from: agent.wallet, value: PRICE.toString(), nonce: body.nonce });
    const validFor = Number(authorization.validBefore) - Math.floor(Date.now() / 1000);
    expect(validFor).toBeGreaterThan(0);
    expect(validFor).toBeLessThanOrEqual(MAX_SIGNED_VALIDITY_SECONDS);
    const signer = await recoverTypedDataAddress({
      domain: { name: "USD Coin", version: "2", chainId: t.config.chainId, verifyingContract: market.usdc },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: authorization.from as Address,
        to: authorization.to as Address,
        value: BigInt(authorization.value as string),
        validAfter: BigInt(authorization.validAfter as string),
        validBefore: BigInt(authorization.validBefore as string),
        nonce: authorization.nonce as `0x${string}`,
      },
      signature,
    });
    expect(signer).toBe(agent.wallet);
    expect(await recorded(agent)).toEqual({ spends: 1, reservations: 1 });

    const paid = await present(t, listingId, body.payment_signature);
    expect(paid.status, await paid.clone().text()).toBe(201);
    const purchase = await json(paid);
    expect(purchase).toMatchObject({ state: "FUNDED", buyer_agent_id: agent.id, payer: agent.wallet });
    expect(await usdcOf(market, agent.wallet)).toBe(2n * PRICE);
    // The agent acts on it with its own key, as the buyer.
    const read = await t.app.request(`/api/transactions/${purchase.transaction_id}`, {
      headers: { authorization: `Bearer ${agent.key}` },
    });
    expect(read.status).toBe(200);
    expect((await json(read)).buyer).toMatchObject({ id: agent.id });
  });

  it("takes the decoded PAYMENT-REQUIRED as well as the header", async () => {
    const agent = await ownedAgent(PRICE);
    const signed = await sign(agent.key, await paymentRequiredOf(t, listingId));
    expect(signed.status, await signed.clone().text()).toBe(201);
    expect((await present(t, listingId, (await json(signed)).payment_signature)).status).toBe(201);
  });
});

describe("balance and caps", () => {
  it("reserves each signed payment until it is used: of 10 at once with funds for 3, 3 are signed, 7 refused 402", async () => {
    const agent = await ownedAgent(3n * PRICE);
    const header = await requiredHeader();
    const answers = await Promise.all(Array.from({ length: 10 }, () => sign(agent.key, header)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 201, 201, 402, 402, 402, 402, 402, 402, 402]);
    const refusal = await json(answers.find((answer) => answer.status === 402) as Response);
    expect(refusal.code).toBe("insufficient_balance");
    const signed = await Promise.all(answers.filter((a) => a.status === 201).map((a) => json(a)));
    // One settled: the balance shows it, its reservation ends, the other two still hold.
    expect((await present(t, listingId, signed[0].payment_signature)).status).toBe(201);
    expect((await sign(agent.key, header)).status).toBe(402);
    expect((await present(t, listingId, signed[1].payment_signature)).status).toBe(201);
    expect((await present(t, listingId, signed[2].payment_signature)).status).toBe(201);
    expect(await usdcOf(market, agent.wallet)).toBe(0n);
    // Settled payments hold nothing more: funded again with one price, the wallet signs one payment
    // (were the three still counted, it would be refused), and their rows are gone with that check.
    expect((await post(t.app, "/api/dev/faucet", { address: agent.wallet, usdc_wei: PRICE.toString() })).status).toBe(
      200,
    );
    expect((await sign(agent.key, header)).status).toBe(201);
    expect((await sign(agent.key, header)).status).toBe(402);
    expect(await recorded(agent)).toEqual({ spends: 4, reservations: 1 });
  });

  it("over the per-purchase cap: 402 spending_limit, nothing signed or recorded", async () => {
    const agent = await ownedAgent(5n * PRICE, { per_purchase_wei: (PRICE - 1n).toString() });
    const refused = await sign(agent.key, await requiredHeader());
    expect(refused.status).toBe(402);
    const body = await json(refused);
    expect(body).toMatchObject({ code: "spending_limit", limit: "per_purchase", amount_wei: PRICE.toString() });
    expect(body.payment_signature).toBeUndefined();
    expect(await recorded(agent)).toEqual({ spends: 0, reservations: 0 });
  });

  it("a signed payment counts in the day's spending whether or not its payee settles it", async () => {
    const agent = await ownedAgent(5n * PRICE, { per_day_wei: (2n * PRICE).toString() });
    const header = await requiredHeader();
    expect((await sign(agent.key, header)).status).toBe(201);
    expect((await sign(agent.key, header)).status).toBe(201);
    const third = await sign(agent.key, header);
    expect(third.status).toBe(402);
    expect(await json(third)).toMatchObject({
      code: "spending_limit",
      limit: "per_day",
      spent_wei: (2n * PRICE).toString(),
      remaining_wei: "0",
    });
    const limits = await json(
      await t.app.request("/api/agents/me/limits", { headers: { authorization: `Bearer ${agent.key}` } }),
    );
    expect(limits).toMatchObject({ spent_24h_wei: (2n * PRICE).toString(), remaining_24h_wei: "0" });
  });

  it("above the approval threshold it waits (202, nothing signed); the owner's approval signs it, and it pays", async () => {
    const agent = await ownedAgent(2n * PRICE, { approval_above_wei: (PRICE / 2n).toString() });
    const header = await requiredHeader();
    // Asked on the wall clock: an approval's expiry is Postgres's now() + 24 hours, which the chain's
    // clock (days ahead once other files moved it) would read as past. Only signing needs the chain's.
    clock.restore();
    const waiting = await sign(agent.key, header);
    expect(waiting.status, await waiting.clone().text()).toBe(202);
    const { approval, state } = await json(waiting);
    expect(state).toBe("AWAITING_APPROVAL");
    expect(approval).toMatchObject({ action: "x402", amount_wei: PRICE.toString(), state: "pending" });
    expect(approval.summary).toContain(`/api/listings/${listingId}/x402`);
    expect(await recorded(agent)).toEqual({ spends: 0, reservations: 0 });
    // Asked again while it waits: the same approval.
    expect((await json(await sign(agent.key, header))).approval.id).toBe(approval.id);
    clock = await clockAtChain(market);

    const approved = await t.app.request(`/api/owner/approvals/${approval.id}/approve`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner.session}` },
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    const result = (await json(approved)).result;
    expect(result).toMatchObject({ payer: agent.wallet, amount_wei: PRICE.toString(), header: "PAYMENT-SIGNATURE" });
    // The agent is told, with the payment to send.
    const notifications = await json(
      await t.app.request("/api/notifications?limit=20", { headers: { authorization: `Bearer ${agent.key}` } }),
    );
    const told = notifications.notifications.find((n: { kind: string }) => n.kind === "approval.approved");
    expect(told.payload.result.payment_signature).toBe(result.payment_signature);
    const paid = await present(t, listingId, result.payment_signature);
    expect(paid.status, await paid.clone().text()).toBe(201);
    expect((await json(paid)).buyer_agent_id).toBe(agent.id);
  });

  it("the owner's session signs for its agent within the caps, without asking itself for approval", async () => {
    const agent = await ownedAgent(PRICE, { approval_above_wei: "1" });
    const signed = await sign(owner.session, await requiredHeader(), agent.id);
    expect(signed.status, await signed.clone().text()).toBe(201);
  });
});

describe("refusals sign nothing and record nothing", () => {
  /** The listing's requirements with `change` applied to its one option. */
  async function changed(change: (accepts: PaymentRequired["accepts"][number]) => object): Promise<string> {
    const required = await paymentRequiredOf(t, listingId);
    return encodePaymentRequiredHeader({
      ...required,
      accepts: [{ ...required.accepts[0], ...change(required.accepts[0] as PaymentRequired["accepts"][number]) }],
    } as PaymentRequired);
  }

  it("400 x402_unpayable for another network, asset or transfer method, the agent's own wallet as payee, no amount", async () => {
    const agent = await ownedAgent(5n * PRICE);
    const cases = [
      await changed(() => ({ network: "eip155:1" })),
      await changed(() => ({ asset: newWallet().address })),
      await changed(() => ({ scheme: "upto" })),
      await changed((option) => ({ extra: { ...option.extra, assetTransferMethod: "permit2" } })),
      await changed(() => ({ payTo: agent.wallet })),
      await changed(() => ({ amount: "0" })),
      await changed(() => ({ amount: "1".repeat(80) })),
    ];
    for (const required of cases) {
      const refused = await sign(agent.key, required);
      expect(refused.status, await refused.clone().text()).toBe(400);
      expect((await json(refused)).code).toBe("x402_unpayable");
    }
    expect(await recorded(agent)).toEqual({ spends: 0, reservations: 0 });
  });

  it("400 for what is no PAYMENT-REQUIRED, 400 for an external agent, 401 without a key", async () => {
    const agent = await ownedAgent(PRICE);
    for (const bad of [
      "not base64 at all!",
      Buffer.from("{not json").toString("base64"),
      Buffer.from(JSON.stringify({ x402Version: 1, accepts: [] })).toString("base64"),
      { x402Version: 2, accepts: "none" },
      "x".repeat(20_000),
      "",
      42,
      null,
      ["a"],
      "bad\u0000",
    ]) {
      const refused = await sign(agent.key, bad);
      expect(refused.status, `${JSON.stringify(bad).slice(0, 40)}: ${await refused.clone().text()}`).toBe(400);
      expect((await json(refused)).error).toEqual(expect.any(String));
    }
    const missing = await t.app.request("/api/wallet/x402-payments", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${agent.key}` },
      body: JSON.stringify({ other: 1 }),
    });
    expect(missing.status).toBe(400);
    expect(await recorded(agent)).toEqual({ spends: 0, reservations: 0 });

    const external = await sign(seller.key, await requiredHeader());
    expect(external.status).toBe(400);
    const anonymous = await t.app.request("/api/wallet/x402-payments", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ payment_required: await requiredHeader() }),
    });
    expect(anonymous.status).toBe(401);
    const forged = await sign("am_live_forged", await requiredHeader());
    expect(forged.status).toBe(401);
  });

  it("another owner's session cannot sign for an agent it does not own (403)", async () => {
    const agent = await ownedAgent(PRICE);
    const strangerWallet = newWallet();
    const stranger = await sessionOf(t.app, strangerWallet, t.config.chainId);
    const refused = await sign(stranger, await requiredHeader(), agent.id);
    expect(refused.status).toBe(403);
    expect(await recorded(agent)).toEqual({ spends: 0, reservations: 0 });
    const hosted = await registerHosted(t.app, `unowned ${uniqueWord()}`);
    expect((await sign(stranger, await requiredHeader(), hosted.id)).status).toBe(403);
    expect(await t.db.select().from(transactions).where(eq(transactions.buyerAgentId, agent.id))).toEqual([]);
  });
});
