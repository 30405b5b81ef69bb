import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { sql } from "drizzle-orm";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  json,
  registerHosted,
  registerWithWallet,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import {
  type ChainHelper,
  chainHelper,
  clockAtChain,
  fundedPayer,
  present,
  signedPayment,
  stockClient,
  usdcOf,
  x402Url,
} from "../../../test/x402.ts";

/*
 * x402 payments refused: whatever a header holds (not base64, not JSON, not x402, another version,
 * another network, asset, payee, amount or listing, a forged signature, an expired authorization or
 * one valid for too long, a payer without the funds, the seller paying itself) the answer is a 4xx
 * (402 `payment_invalid` with fresh requirements, its reason in PAYMENT-REQUIRED), never a 500, and
 * nothing is recorded or paid. Listings that cannot be bought over x402 are refused with a 4xx too.
 */
const PRICE = 1_500_000n;

let t: TestApp;
let market: Market;
let helper: ChainHelper;
let clock: { restore: () => void };
let listing: { id: string };
let twin: { id: string };

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  helper = await chainHelper(market);
  clock = await clockAtChain(market);
  const seller = await registerHosted(t.app, "x402 error seller");
  listing = await createListing(t.app, seller, { title: "Refused", price_wei: PRICE.toString() });
  // Another listing at the same price: the signature binds the payee and the amount, not the listing.
  twin = await createListing(t.app, seller, { title: "Its twin", price_wei: PRICE.toString() });
});
afterAll(async () => {
  clock.restore();
  await t.close();
});

/** Every row an x402 payment could write, and the escrow's balance: what a refusal leaves as it was. */
async function state() {
  const { rows } = await t.db.execute<Record<string, number>>(sql`
    SELECT (SELECT count(*)::int FROM app.transactions) AS transactions,
           (SELECT count(*)::int FROM app.x402_payments) AS payments,
           (SELECT count(*)::int FROM app.receipt_tokens) AS tokens,
           (SELECT count(*)::int FROM app.agents) AS agents,
           (SELECT count(*)::int FROM app.relayed_transactions) AS sends`);
  return { ...rows[0], escrow: await usdcOf(market, market.escrow) };
}

/** Presents `header` and expects 402 `payment_invalid` for `reason`, with nothing changed. */
async function refused(header: string, reason: string | RegExp, listingId = listing.id) {
  const before = await state();
  const response = await present(t, listingId, header);
  const body = await json(response);
  expect(response.status, JSON.stringify(body)).toBe(402);
  expect(body).toMatchObject({
    code: "payment_invalid",
    reason,
    x402Version: 2,
    accepts: [{ amount: PRICE.toString() }],
  });
  const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
  expect(required.error).toBe(body.reason);
  expect(required.accepts[0]?.extra.listingId).toBe(listingId);
  expect(await state()).toEqual(before);
}

/**
 * The stock client's payment for requirements changed by `tweak` (a client registered for every EVM
 * network and allowing any asset, as one told to pay anything would be), presented as made for those
 * or, with `accepted` restored, as if for ours.
 */
async function paidFor(tweak: (required: PaymentRequired) => PaymentRequired, keepAccepted = false) {
  const payer = await fundedPayer(helper, 5n * USDC);
  const anything = new x402Client()
    .register("eip155:*", new ExactEvmScheme(payer))
    .setSpendControls({ allowedAssets: true });
  const { payload } = await signedPayment(t, anything, listing.id, tweak);
  if (keepAccepted) return { payer, header: encodePaymentSignatureHeader(payload) };
  const ours = decodePaymentRequiredHeader(
    (await t.app.request(x402Url(listing.id))).headers.get("payment-required") ?? "",
  );
  const restored: PaymentPayload = { ...payload, accepted: ours.accepts[0] as PaymentPayload["accepted"] };
  return { payer, header: encodePaymentSignatureHeader(restored) };
}

const requirement = (
  required: PaymentRequired,
  change: Partial<PaymentRequired["accepts"][number]>,
): PaymentRequired => ({
  ...required,
  accepts: [{ ...(required.accepts[0] as PaymentRequired["accepts"][number]), ...change }],
});

describe("a PAYMENT-SIGNATURE that is not an x402 v2 payment", () => {
  it("garbage, not base64: 402 invalid_payload", async () => {
    await refused("%%% not base64 %%%", "invalid_payload");
  });

  it("base64 of something that is not JSON, or JSON that is not a payment: 402 invalid_payload", async () => {
    await refused(Buffer.from("not json at all").toString("base64"), "invalid_payload");
    await refused(Buffer.from(JSON.stringify({ hello: "world" })).toString("base64"), "invalid_payload");
    await refused(Buffer.from(JSON.stringify([1, 2, 3])).toString("base64"), "invalid_payload");
  });

  it("x402 version 1: 402 invalid_x402_version", async () => {
    const v1 = { x402Version: 1, scheme: "exact", network: "base", payload: { signature: "0x", authorization: {} } };
    await refused(Buffer.from(JSON.stringify(v1)).toString("base64"), "invalid_x402_version");
  });

  it("an exact-scheme payload that is not an EIP-3009 authorization (bad nonce, huge value): 402 invalid_payload", async () => {
    const payer = await fundedPayer(helper, 0n);
    const { payload } = await signedPayment(t, stockClient(payer, market), listing.id);
    const authorization = (payload.payload as { authorization: Record<string, string> }).authorization;
    for (const broken of [
      { ...authorization, nonce: "0x1234" },
      { ...authorization, value: (2n ** 256n).toString() },
      { ...authorization, from: "not an address" },
    ]) {
      const header = encodePaymentSignatureHeader({
        ...payload,
        payload: { ...payload.payload, authorization: broken },
      });
      await refused(header, "invalid_payload");
    }
  });
});

describe("a payment for other requirements than this listing's", () => {
  it("another network: 402 network_mismatch", async () => {
    const { header } = await paidFor((required) => requirement(required, { network: "eip155:1" }), true);
    await refused(header, "network_mismatch");
  });

  it("another asset: 402 asset_mismatch", async () => {
    const asset = privateKeyToAccount(generatePrivateKey()).address;
    const { header } = await paidFor((required) => requirement(required, { asset }), true);
    await refused(header, "asset_mismatch");
  });

  it("another payee: 402 recipient_mismatch", async () => {
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const { header } = await paidFor((required) => requirement(required, { payTo }), true);
    await refused(header, "recipient_mismatch");
    // Claiming our requirements does not help: the authorization pays someone else.
    const { header: disguised } = await paidFor((required) => requirement(required, { payTo }));
    await refused(disguised, "recipient_mismatch");
  });

  it("another amount: 402 amount_mismatch", async () => {
    const { header } = await paidFor((required) => requirement(required, { amount: "1" }), true);
    await refused(header, "amount_mismatch");
    const { header: disguised } = await paidFor((required) => requirement(required, { amount: "1" }));
    await refused(disguised, "amount_mismatch");
  });

  it("another listing of the same price: 402 listing_mismatch", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), twin.id);
    await refused(header, "listing_mismatch");
    expect(await usdcOf(market, payer.address)).toBe(5n * USDC);
  });
});

describe("a payment that does not verify", () => {
  it("a forged signature: 402 invalid_exact_evm_signature", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { payload } = await signedPayment(t, stockClient(payer, market), listing.id);
    const signature = (payload.payload as { signature: Hex }).signature;
    const forged = `${signature.slice(0, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}`;
    await refused(
      encodePaymentSignatureHeader({ ...payload, payload: { ...payload.payload, signature: forged } }),
      /signature/,
    );
  });

  it("an expired authorization: 402 invalid_exact_evm_payload_authorization_valid_before", async () => {
    const { header } = await paidFor((required) => requirement(required, { maxTimeoutSeconds: -600 }));
    await refused(header, "invalid_exact_evm_payload_authorization_valid_before");
  });

  it("an authorization valid far longer than maxTimeoutSeconds: 402 authorization_too_long", async () => {
    const { header } = await paidFor((required) => requirement(required, { maxTimeoutSeconds: 30 * 24 * 3600 }));
    await refused(header, "authorization_too_long");
  });

  it("a payer without the funds: 402, the token's simulation refuses it", async () => {
    const payer = await fundedPayer(helper, PRICE - 1n);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    await refused(header, /^invalid_exact_evm_/);
  });
});

describe("a listing that is not bought over x402", () => {
  it("unknown (or not a uuid): 404, with a payment or not", async () => {
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    for (const id of ["6f1c2e9a-3b4d-4c5e-8f70-123456789abc", "not-a-uuid"]) {
      expect((await t.app.request(x402Url(id))).status).toBe(404);
      const before = await state();
      expect((await present(t, id, header)).status).toBe(404);
      expect(await state()).toEqual(before);
    }
  });

  it("a BOUNTY: 400, with a payment or not", async () => {
    const poster = await registerHosted(t.app, "x402 bounty poster", 10n * USDC);
    const bounty = await createListing(t.app, poster, { listing_type: "BOUNTY", price_wei: PRICE.toString() });
    const answer = await t.app.request(x402Url(bounty.id), { method: "POST" });
    expect(answer.status).toBe(400);
    expect(await json(answer)).toMatchObject({ code: "bad_request", error: expect.stringMatching(/FIXED/) });
    const payer = await fundedPayer(helper, 5n * USDC);
    const { header } = await signedPayment(t, stockClient(payer, market), listing.id);
    const before = await state();
    expect((await present(t, bounty.id, header)).status).toBe(400);
    expect(await state()).toEqual(before);
  });

  it("the seller's own: 400, nothing paid", async () => {
    const key = generatePrivateKey();
    const sellerAccount = privateKeyToAccount(key);
    await helper.mint(sellerAccount.address, 5n * USDC);
    const seller = await registerWithWallet(t.app, "x402 self-buyer", sellerAccount.address);
    const own = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const { header } = await signedPayment(t, stockClient(sellerAccount, market), own.id);
    const before = await state();
    const answer = await present(t, own.id, header);
    expect(answer.status).toBe(400);
    expect(await state()).toEqual(before);
    expect(await usdcOf(market, sellerAccount.address)).toBe(5n * USDC);
  });
});
