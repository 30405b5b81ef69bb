import { agentEscrowAbi, escrowIdOf } from "@agent-marketplace/contracts";
import { uuidOfEscrowId } from "@agent-marketplace/indexer";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { type Address, decodeFunctionData, getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  del,
  get,
  json,
  patch,
  post,
  registerHosted,
  registerWithWallet,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import {
  appFetch,
  type ChainHelper,
  chainHelper,
  clockAtChain,
  escrowOnChain,
  fundedPayer,
  payingFetch,
  present,
  signedPayment,
  stockClient,
  usdcOf,
  x402Url,
} from "../../../test/x402.ts";
import { agents, apiKeys, receiptTokens, x402Payments } from "../../db/schema.ts";
import { escrowTimeouts } from "../../domain/transactions/timeouts.ts";
import { x402Purchases } from "../../domain/x402/x402-purchases.ts";

/*
 * x402 on a FIXED listing, on the suite's real chain and Postgres with stock clients (@x402/fetch's
 * wrapFetchWithPayment, x402Client, @x402/evm's ExactEvmScheme over a viem account): the 402's
 * requirements; a purchase in one call, then delivery, a dispute by the receipt token, a 70/30
 * ruling and the balances on chain; an early release; the same payment presented again (settled,
 * under way, at once) never paying twice; a copy of a settled payment earning no token; a payment
 * submitted to the token directly first, recorded once; a cancelled authorization refused. Payers
 * are fresh keys without ETH; no dev account sends anything.
 */
const PRICE = 2_000_000n;

let t: TestApp;
let market: Market;
let helper: ChainHelper;
let clock: { restore: () => void };
let seller: { id: string; key: string; wallet: Address };
let listing: { id: string };

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  helper = await chainHelper(market);
  clock = await clockAtChain(market);
  seller = await registerHosted(t.app, "x402 seller");
  listing = await createListing(t.app, seller, { title: "Translate a README", price_wei: PRICE.toString() });
});
afterAll(async () => {
  clock.restore();
  await t.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const asReceipt = (token: string, path: string, body?: unknown) =>
  t.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...bearer(token) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

async function feeBps(): Promise<bigint> {
  return BigInt(
    await market.publicClient.readContract({ address: market.escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
  );
}

/** The rows an x402 payment writes, counted: what a refusal must leave as it was. */
async function x402Rows() {
  const { rows } = await t.db.execute<{ transactions: number; payments: number; tokens: number; agents: number }>(sql`
    SELECT (SELECT count(*)::int FROM app.transactions) AS transactions,
           (SELECT count(*)::int FROM app.x402_payments) AS payments,
           (SELECT count(*)::int FROM app.receipt_tokens) AS tokens,
           (SELECT count(*)::int FROM app.agents) AS agents`);
  return rows[0];
}

/** A stock client's purchase of `listingId` in one call, as `payer`. */
async function buyOverX402(payer: Parameters<typeof stockClient>[0], listingId = listing.id) {
  const response = await payingFetch(t, stockClient(payer, market))(x402Url(listingId), { method: "POST" });
  return { response, body: await json(response) };
}

describe("GET or POST /api/listings/{id}/x402 without a payment", () => {
  it("answers 402 with the x402 v2 requirements of the listing: USDC, its price, the escrow, the token's domain", async () => {
    for (const method of ["GET", "POST"]) {
      const response = await t.app.request(x402Url(listing.id), { method });
      expect(response.status, method).toBe(402);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
      expect(required).toEqual({
        x402Version: 2,
        error: expect.any(String),
        resource: {
          url: x402Url(listing.id),
          description: expect.stringContaining("Translate"),
          mimeType: "application/json",
        },
        accepts: [
          {
            scheme: "exact",
            network: `eip155:${market.chainId}`,
            asset: getAddress(market.usdc),
            amount: PRICE.toString(),
            payTo: getAddress(market.escrow),
            maxTimeoutSeconds: 300,
            // MockUSDC's EIP-712 domain, read from the token (Base's USDC says the same).
            extra: {
              name: "USD Coin",
              version: "2",
              listingId: listing.id,
              seller: getAddress(seller.wallet),
              deadlineHours: 72,
              disputeWindowSeconds: t.config.disputeWindowSeconds,
            },
          },
        ],
      });
      // The body is the same PaymentRequired, in the API's error shape.
      expect(await json(response)).toMatchObject({
        code: "payment_required",
        x402Version: 2,
        accepts: required.accepts,
      });
    }
  });

  it("names the endpoint in the listing's details (a BOUNTY has none)", async () => {
    const details = await json(await get(t.app, `/api/listings/${listing.id}`));
    expect(details.x402).toEqual({
      endpoint: `/api/listings/${listing.id}/x402`,
      methods: ["GET", "POST"],
      x402_version: 2,
      scheme: "exact",
      network: `eip155:${market.chainId}`,
      asset: getAddress(market.usdc),
      pay_to: getAddress(market.escrow),
    });
  });
});

describe("a stock @x402/fetch client", () => {
  it("buys the listing in one call: 201 FUNDED with the settlement header and a receipt token; the buyer is a keyless agent", async () => {
    const payer = await fundedPayer(helper, 10n * USDC);
    const escrowBefore = await usdcOf(market, market.escrow);
    const purchasedBefore = (await json(await get(t.app, `/api/listings/${listing.id}`))).times_purchased;
    const { response, body } = await buyOverX402(payer);

    expect(response.status).toBe(201);
    expect(body).toMatchObject({
      state: "FUNDED",
      listing_id: listing.id,
      payer: payer.address,
      amount_wei: PRICE.toString(),
      seller_address: getAddress(seller.wallet),
      receipt_token: expect.stringMatching(/^rcpt_[0-9a-f]{64}$/),
    });
    expect(body.escrow_id).toBe(body.transaction_id);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    expect(settlement).toEqual({
      success: true,
      transaction: body.tx_hash,
      network: `eip155:${market.chainId}`,
      payer: payer.address,
      amount: PRICE.toString(),
    });

    // On chain: the escrow whose buyer is the signer, under the nonce it drew; delegated to the operator.
    const [payment] = await t.db.select().from(x402Payments).where(eq(x402Payments.transactionId, body.transaction_id));
    if (!payment) throw new Error("no payment recorded");
    const escrowId = escrowIdOf(payer.address, payment.nonce as Hex);
    expect(body.escrow_id_bytes32).toBe(escrowId);
    expect(body.transaction_id).toBe(uuidOfEscrowId(escrowId));
    expect(await escrowOnChain(market, escrowId)).toEqual({ status: 1, delegated: true });
    expect(await usdcOf(market, payer.address)).toBe(10n * USDC - PRICE);
    expect(await usdcOf(market, market.escrow)).toBe(escrowBefore + PRICE);
    expect(await market.publicClient.getBalance({ address: payer.address })).toBe(0n);

    // The transaction reads FUNDED at once, its buyer an agent made for the wallet: no key, not in the directory.
    const transaction = await json(await get(t.app, `/api/transactions/${body.transaction_id}`));
    expect(transaction).toMatchObject({
      state: "FUNDED",
      buyer: { id: body.buyer_agent_id },
      seller: { id: seller.id },
    });
    const [buyer] = await t.db.select().from(agents).where(eq(agents.id, body.buyer_agent_id));
    expect(buyer).toMatchObject({ walletAddress: payer.address, hosted: false, x402Payer: true });
    expect(await t.db.select().from(apiKeys).where(eq(apiKeys.agentId, body.buyer_agent_id))).toEqual([]);
    const directory = await json(await get(t.app, `/api/agents?keyword=${payer.address.slice(2, 6)}&limit=100`));
    expect(directory.agents.map((agent: { id: string }) => agent.id)).not.toContain(body.buyer_agent_id);
    expect((await json(await get(t.app, `/api/listings/${listing.id}`))).times_purchased).toBe(purchasedBefore + 1);
  });

  it("pays for a registered agent's wallet: that agent is the buyer, and its key moves the escrow too", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const registered = await registerWithWallet(t.app, "x402 registered buyer", payer.address);
    const { response, body } = await buyOverX402(payer);
    expect(response.status).toBe(201);
    expect(body.buyer_agent_id).toBe(registered.id);
    // Its wallet sends nothing: the operator disputes for it (the escrow is delegated).
    const disputed = await post(
      t.app,
      `/api/transactions/${body.transaction_id}/dispute`,
      { reason: "Not started" },
      registered.key,
    );
    expect(disputed.status).toBe(200);
    expect(await json(disputed)).toMatchObject({ state: "DISPUTED" });
  });
});

describe("an x402 purchase's lifecycle", () => {
  it("delivered, disputed by the receipt token, ruled 70/30 by the arbiter: the balances on chain", async () => {
    const payer = await fundedPayer(helper, 3n * USDC);
    const { body: bought } = await buyOverX402(payer);
    const id = bought.transaction_id as string;
    const token = bought.receipt_token as string;
    const sellerBefore = await usdcOf(market, seller.wallet);

    const delivered = await post(
      t.app,
      `/api/transactions/${id}/deliver`,
      { deliverable: "Le README traduit" },
      seller.key,
    );
    expect(delivered.status).toBe(200);
    const deliverable = await asReceipt(token, `/api/transactions/${id}/deliverable`);
    expect(deliverable.status).toBe(200);
    expect(await json(deliverable)).toMatchObject({ content: "Le README traduit" });

    const disputed = await asReceipt(token, `/api/transactions/${id}/dispute`, {
      reason: "Half of it is untranslated",
    });
    expect(disputed.status).toBe(200);
    expect(await json(disputed)).toMatchObject({ state: "DISPUTED" });
    const evidence = await asReceipt(token, `/api/transactions/${id}/evidence`, {
      content: "Sections 3 and 4 are still in English",
    });
    expect(evidence.status).toBe(201);
    // The receipt reads the dispute's words, as a party does; the public does not.
    expect((await json(await asReceipt(token, `/api/transactions/${id}`))).dispute).toMatchObject({
      raised_by: "buyer",
      reason: "Half of it is untranslated",
    });
    expect((await json(await get(t.app, `/api/transactions/${id}`))).dispute.reason).toBeNull();

    const ruled = await post(
      t.app,
      `/api/transactions/${id}/resolve`,
      { seller_bps: 7_000, note: "70/30" },
      ARBITER_API_KEY,
    );
    expect(ruled.status).toBe(200);
    const sellerShare = (PRICE * 7_000n) / 10_000n;
    const fee = (sellerShare * (await feeBps())) / 10_000n;
    expect(await usdcOf(market, seller.wallet)).toBe(sellerBefore + sellerShare - fee);
    expect(await usdcOf(market, payer.address)).toBe(3n * USDC - PRICE + (PRICE - sellerShare));

    // A ruling with a share to the seller reads RELEASED: the buyer reviews by its receipt.
    const reviewed = await asReceipt(token, `/api/transactions/${id}/review`, { rating: 3, comment: "Partly done" });
    expect(reviewed.status).toBe(201);
  });

  it("released early by the receipt token: the seller is paid before the dispute window closes", async () => {
    const payer = await fundedPayer(helper, 3n * USDC);
    const { body: bought } = await buyOverX402(payer);
    const id = bought.transaction_id as string;
    const sellerBefore = await usdcOf(market, seller.wallet);
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(
      200,
    );
    const released = await asReceipt(bought.receipt_token, `/api/transactions/${id}/release`, {});
    expect(released.status).toBe(200);
    const fee = (PRICE * (await feeBps())) / 10_000n;
    expect(await json(released)).toMatchObject({ state: "RELEASED", seller_received_wei: (PRICE - fee).toString() });
    expect(await usdcOf(market, seller.wallet)).toBe(sellerBefore + PRICE - fee);
  });
});

describe("the same payment presented again", () => {
  /** A payment the stock client sends, captured on its way (the header of the paid request). */
  async function capturedPurchase(payer: Parameters<typeof stockClient>[0]) {
    let header = "";
    const spy: typeof fetch = (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      header = request.headers.get("payment-signature") ?? header;
      return appFetch(t)(request);
    };
    const { wrapFetchWithPayment } = await import("@x402/fetch");
    const response = await wrapFetchWithPayment(spy, stockClient(payer, market))(x402Url(listing.id), {
      method: "POST",
    });
    return { response, body: await json(response), header };
  }

  it("once settled: 200, the same transaction, nothing paid again, no receipt token", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const first = await capturedPurchase(payer);
    expect(first.response.status).toBe(201);
    const balance = await usdcOf(market, payer.address);
    const rows = await x402Rows();
    for (const method of ["POST", "GET"] as const) {
      const again = await present(t, listing.id, first.header, method);
      expect(again.status, method).toBe(200);
      const body = await json(again);
      expect(body).toMatchObject({
        transaction_id: first.body.transaction_id,
        escrow_id: first.body.escrow_id,
        escrow_id_bytes32: first.body.escrow_id_bytes32,
        tx_hash: first.body.tx_hash,
        state: "FUNDED",
      });
      expect(body).not.toHaveProperty("receipt_token");
      expect(decodePaymentResponseHeader(again.headers.get("payment-response") ?? "")).toMatchObject({
        success: true,
        transaction: first.body.tx_hash,
      });
    }
    expect(await usdcOf(market, payer.address)).toBe(balance);
    expect(await x402Rows()).toEqual(rows);
  });

  it("copied from the settlement's calldata by the seller: the transaction, but no token to act with", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { body: bought } = await buyOverX402(payer);
    const transaction = await market.publicClient.getTransaction({ hash: bought.tx_hash });
    const call = decodeFunctionData({ abi: agentEscrowAbi, data: transaction.input });
    if (call.functionName !== "fundWithTransfer") throw new Error(`settled by ${call.functionName}`);
    const authorization = call.args[3];
    // The payment as anyone can rebuild it: the public requirements and the public authorization.
    const required = decodePaymentRequiredHeader(
      (await t.app.request(x402Url(listing.id))).headers.get("payment-required") ?? "",
    );
    const copy: PaymentPayload = {
      x402Version: 2,
      resource: required.resource,
      accepted: required.accepts[0] as PaymentPayload["accepted"],
      payload: {
        authorization: {
          from: authorization.from,
          to: market.escrow,
          value: authorization.value.toString(),
          validAfter: authorization.validAfter.toString(),
          validBefore: authorization.validBefore.toString(),
          nonce: authorization.nonce,
        },
        signature: authorization.signature,
      },
    };
    const tokensBefore = await t.db
      .select()
      .from(receiptTokens)
      .where(eq(receiptTokens.transactionId, bought.transaction_id));
    const replay = await present(t, listing.id, encodePaymentSignatureHeader(copy));
    expect(replay.status).toBe(200);
    const body = await json(replay);
    expect(body.transaction_id).toBe(bought.transaction_id);
    expect(body).not.toHaveProperty("receipt_token");
    expect(
      await t.db.select().from(receiptTokens).where(eq(receiptTokens.transactionId, bought.transaction_id)),
    ).toEqual(tokensBefore);
    // The seller's own key may not release for the buyer, whatever it copied.
    expect(
      (await post(t.app, `/api/transactions/${bought.transaction_id}/deliver`, { deliverable: "x" }, seller.key))
        .status,
    ).toBe(200);
    const early = await post(t.app, `/api/transactions/${bought.transaction_id}/release`, {}, seller.key);
    expect(early.status).toBe(409);
  });

  it("at once by two requests: one escrow, one transaction; the one that paid gets a token", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    const rows = await x402Rows();
    const answers = await Promise.all([present(t, listing.id, header), present(t, listing.id, header)]);
    const bodies = await Promise.all(answers.map((answer) => json(answer)));
    // The chain mines on send here: the other request is answered 201 (and a token) if it found the
    // settlement under way, 200 (none) if already mined.
    expect(answers.map((answer) => answer.status)).toContain(201);
    for (const [index, answer] of answers.entries()) {
      expect([200, 201]).toContain(answer.status);
      expect(Boolean(bodies[index].receipt_token)).toBe(answer.status === 201);
    }
    expect(new Set(bodies.map((body) => body.transaction_id)).size).toBe(1);
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC - PRICE);
    const after = await x402Rows();
    expect({ transactions: after?.transactions, payments: after?.payments }).toEqual({
      transactions: (rows?.transactions ?? 0) + 1,
      payments: (rows?.payments ?? 0) + 1,
    });
  });

  it("50 times at once: one escrow and one payment; every answer is the transaction (201 or 200), none a refusal", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    const rows = await x402Rows();
    // A request that checked for a recorded settlement just before another's commit, and asked the
    // token just after that settlement was mined, must still answer the settlement, not 402.
    const answers = await Promise.all(Array.from({ length: 50 }, () => present(t, listing.id, header)));
    const bodies = await Promise.all(answers.map((answer) => json(answer)));
    const refused = bodies.filter((_, index) => ![200, 201].includes(answers[index]?.status ?? 0));
    expect(refused, "no refusals").toEqual([]);
    expect(new Set(bodies.map((body) => body.transaction_id)).size).toBe(1);
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC - PRICE);
    const after = await x402Rows();
    expect({ transactions: after?.transactions, payments: after?.payments }).toEqual({
      transactions: (rows?.transactions ?? 0) + 1,
      payments: (rows?.payments ?? 0) + 1,
    });
  });

  it("checked unrecorded, then settled by another request before its verification: answers that settlement, not 402", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { payload, header } = await signedPayment(t, stockClient(payer, market), listing.id);
    // This request's view of the chain lets the other request settle the payment completely (sent,
    // mined, recorded) just as its verification starts: the token then refuses the authorization.
    const { chain } = t.services;
    let other: Promise<Response> | undefined;
    const racing = x402Purchases({
      ...t.services,
      db: t.db,
      config: t.config,
      logger: pino({ level: "silent" }),
      chain: {
        ...chain,
        x402: {
          ...chain.x402,
          facilitatorSigner: {
            ...chain.x402.facilitatorSigner,
            readContract: async (args) => {
              other ??= Promise.resolve(present(t, listing.id, header));
              expect((await other).status, "the other request settled it").toBe(201);
              return chain.x402.facilitatorSigner.readContract(args);
            },
          },
        },
      },
    });
    const outcome = await racing.pay(listing.id, { decoded: payload }, x402Url(listing.id));
    expect(outcome).toMatchObject({ settled: false, purchase: { state: "FUNDED" } });
    const recorded = await t.db.select().from(x402Payments).where(eq(x402Payments.payer, payer.address));
    expect(recorded.map((row) => row.transactionId)).toEqual([outcome.purchase.transaction_id]);
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC - PRICE);
  });

  it("at once by two requests while the chain holds the settlement: one escrow, a receipt token for each", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    await market.testClient.setAutomine(false);
    let answers: Promise<Response[]> | undefined;
    try {
      answers = Promise.all([
        Promise.resolve(present(t, listing.id, header)),
        Promise.resolve(present(t, listing.id, header)),
      ]);
      await waitFor(
        async () => (await t.db.select().from(x402Payments).where(eq(x402Payments.payer, payer.address))).length === 1,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await market.testClient.mine({ blocks: 1 });
      const both = await answers;
      const bodies = await Promise.all(both.map((answer) => json(answer)));
      expect(both.map((answer) => answer.status)).toEqual([201, 201]);
      expect(new Set(bodies.map((body) => body.transaction_id)).size).toBe(1);
      expect(new Set(bodies.map((body) => body.receipt_token)).size).toBe(2);
      for (const body of bodies) {
        expect((await asReceipt(body.receipt_token, `/api/transactions/${body.transaction_id}`)).status).toBe(200);
      }
      expect(await t.db.select().from(x402Payments).where(eq(x402Payments.payer, payer.address))).toHaveLength(1);
      expect(await usdcOf(market, payer.address)).toBe(5n * USDC - PRICE);
    } finally {
      await market.testClient.setAutomine(true);
      await answers?.catch(() => undefined);
    }
  });

  it("after the client timed out while the chain held the settlement: one escrow, and the retry gets its token", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    await market.testClient.setAutomine(false);
    let first: Promise<Response> | undefined;
    try {
      first = Promise.resolve(present(t, listing.id, header));
      // The client gives up once the settlement is sent (recorded, in the mempool, not mined).
      await waitFor(
        async () => (await t.db.select().from(x402Payments).where(eq(x402Payments.payer, payer.address))).length === 1,
      );
      const retry = Promise.resolve(present(t, listing.id, header));
      // The retry is waiting for the same settlement; then the chain mines it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await market.testClient.mine({ blocks: 1 });
      const answer = await retry;
      expect(answer.status).toBe(201);
      const body = await json(answer);
      expect(body).toMatchObject({ state: "FUNDED", receipt_token: expect.stringMatching(/^rcpt_/) });
      expect((await first).status, "the first request, whose client had gone").toBe(201);
      expect(await t.db.select().from(x402Payments).where(eq(x402Payments.payer, payer.address))).toHaveLength(1);
      expect(await usdcOf(market, payer.address)).toBe(5n * USDC - PRICE);
      expect((await asReceipt(body.receipt_token, `/api/transactions/${body.transaction_id}`)).status).toBe(200);
    } finally {
      await market.testClient.setAutomine(true);
      await first?.catch(() => undefined);
    }
  });
});

describe("a payment submitted to the token directly first (front-run)", () => {
  it("is recorded as the buyer's escrow for this listing once, the funds counted once, and earns no token", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { payload, header } = await signedPayment(t, stockClient(payer, market), listing.id);
    const escrowBefore = await usdcOf(market, market.escrow);
    await helper.frontRun(payload);
    expect(await usdcOf(market, market.escrow)).toBe(escrowBefore + PRICE);

    const answer = await present(t, listing.id, header);
    expect(answer.status).toBe(201);
    const body = await json(answer);
    expect(body).toMatchObject({ state: "FUNDED", listing_id: listing.id, payer: payer.address });
    expect(body).not.toHaveProperty("receipt_token");
    expect(body.message).toMatch(/signing in with the paying wallet/);
    const nonce = (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    expect(await escrowOnChain(market, escrowIdOf(payer.address, nonce))).toEqual({ status: 1, delegated: true });
    expect(await usdcOf(market, market.escrow)).toBe(escrowBefore + PRICE);
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC - PRICE);
    const [payment] = await t.db.select().from(x402Payments).where(eq(x402Payments.transactionId, body.transaction_id));
    expect(payment?.frontRun).toBe(true);

    // Presented again: the same escrow, still one.
    const again = await present(t, listing.id, header);
    expect(again.status).toBe(200);
    expect((await json(again)).transaction_id).toBe(body.transaction_id);
    expect(await usdcOf(market, market.escrow)).toBe(escrowBefore + PRICE);
  });
});

describe("a cancelled authorization", () => {
  it("is refused (402) and nothing is recorded", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { payload, header } = await signedPayment(t, stockClient(payer, market), listing.id);
    await helper.cancel(payer, (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce);
    const rows = await x402Rows();
    const answer = await present(t, listing.id, header);
    expect(answer.status).toBe(402);
    expect(await json(answer)).toMatchObject({
      code: "payment_invalid",
      reason: "invalid_exact_evm_nonce_already_used",
    });
    expect(await x402Rows()).toEqual(rows);
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC);
  });
});

describe("a listing that cannot be bought now", () => {
  it("paused or deleted: 409, even with a payment, and nothing is paid; its settled payments still answer", async () => {
    const other = await createListing(t.app, seller, { title: "Paused soon", price_wei: PRICE.toString() });
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), other.id);
    const settledPayer = await fundedPayer(helper, 5n * USDC);
    const settled = await signedPayment(t, stockClient(settledPayer, market), other.id);
    const bought = await present(t, other.id, settled.header);
    expect(bought.status).toBe(201);
    const transactionId = (await json(bought)).transaction_id;
    expect((await patch(t.app, `/api/listings/${other.id}`, { is_active: false }, seller.key)).status).toBe(200);
    expect((await t.app.request(x402Url(other.id))).status).toBe(409);
    expect((await present(t, other.id, header)).status).toBe(409);
    const replay = await present(t, other.id, settled.header);
    expect(replay.status, "a payment settled before the pause is answered").toBe(200);
    expect((await json(replay)).transaction_id).toBe(transactionId);
    expect((await del(t.app, `/api/listings/${other.id}`, seller.key)).status).toBe(200);
    const closed = await present(t, other.id, header);
    expect(closed.status).toBe(409);
    expect(await json(closed)).toMatchObject({ code: "listing_closed" });
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC);
  });
});

// Last: it moves the chain's clock past the dispute window.
describe("an x402 purchase nobody releases", () => {
  it("is released to the seller by the keeper once the dispute window has closed", async () => {
    const payer = await fundedPayer(helper, 3n * USDC);
    const { body: bought } = await buyOverX402(payer);
    const id = bought.transaction_id as string;
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(
      200,
    );
    const sellerBefore = await usdcOf(market, seller.wallet);
    await market.increaseTime(t.config.disputeWindowSeconds + 60);
    const timeouts = escrowTimeouts({ db: t.db, ...t.services });
    const due = (await timeouts.dueEscrows(10_000)).find((item) => item.id === id);
    if (!due) throw new Error("the delivered x402 escrow is not due after its window");
    expect(await timeouts.autoRelease(due)).toEqual({ settled: true });
    const fee = (PRICE * (await feeBps())) / 10_000n;
    expect(await usdcOf(market, seller.wallet)).toBe(sellerBefore + PRICE - fee);
    expect((await json(await get(t.app, `/api/transactions/${id}`))).state).toBe("RELEASED");
  });
});

/** Polls `condition` every 50 ms for up to 10 s. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("condition not met within 10 s");
}
