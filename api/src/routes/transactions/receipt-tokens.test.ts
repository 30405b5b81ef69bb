import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import { createListing, json, registerHosted, sessionOf, type TestApp, testApp } from "../../../test/harness.ts";
import {
  type ChainHelper,
  chainHelper,
  clockAtChain,
  fundedPayer,
  payingFetch,
  stockClient,
  x402Url,
} from "../../../test/x402.ts";

/*
 * The receipt token of an x402 payment is its keyless buyer's credential on that transaction's
 * routes only: GET it and its deliverable, POST release, dispute, evidence, review. On another
 * transaction, or any other route that wants a credential, it is refused (403; an unknown token
 * 401) and nothing changes. It spends its buyer's request budget. A buyer that lost it signs in
 * with the paying wallet and acts as the same agent.
 */
const PRICE = 1_000_000n;
const PER_MINUTE = 40;

let t: TestApp;
let market: Market;
let helper: ChainHelper;
let clock: { restore: () => void };
let seller: { id: string; key: string };
let listing: { id: string };

beforeAll(async () => {
  t = await testApp({ rateLimitPerMinute: PER_MINUTE });
  market = testMarket();
  helper = await chainHelper(market);
  clock = await clockAtChain(market);
  seller = await registerHosted(t.app, "receipt seller");
  listing = await createListing(t.app, seller, { title: "Receipts", price_wei: PRICE.toString() });
});
afterAll(async () => {
  clock.restore();
  await t.close();
});

async function purchase() {
  const payer = await fundedPayer(helper, 5n * USDC);
  const response = await payingFetch(t, stockClient(payer, market))(x402Url(listing.id), { method: "POST" });
  const body = await json(response);
  if (response.status !== 201) throw new Error(`x402 answered ${response.status}: ${JSON.stringify(body)}`);
  return { payer, id: body.transaction_id as string, token: body.receipt_token as string, buyer: body.buyer_agent_id };
}

function call(method: string, path: string, token: string, body?: unknown) {
  return t.app.request(path, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/** A fingerprint of the rows a move could write. */
async function snapshot(): Promise<string> {
  const { rows } = await t.db.execute<{ digest: string }>(sql`SELECT concat_ws('|',
      (SELECT count(*) FROM app.relayed_transactions), (SELECT count(*) FROM app.disputes),
      (SELECT count(*) FROM app.evidence), (SELECT count(*) FROM app.reviews), (SELECT count(*) FROM app.listings),
      (SELECT count(*) FROM app.withdrawals), (SELECT count(*) FROM app.messages)) AS digest`);
  return rows[0]?.digest ?? "";
}

describe("a receipt token", () => {
  it("is refused on another transaction's routes (403), and nothing changes", async () => {
    const mine = await purchase();
    const other = await purchase();
    const before = await snapshot();
    for (const [method, path, body] of [
      ["GET", `/api/transactions/${other.id}`, undefined],
      ["GET", `/api/transactions/${other.id}/deliverable`, undefined],
      ["POST", `/api/transactions/${other.id}/release`, {}],
      ["POST", `/api/transactions/${other.id}/dispute`, { reason: "not mine" }],
      ["POST", `/api/transactions/${other.id}/evidence`, { content: "not mine" }],
      ["POST", `/api/transactions/${other.id}/review`, { rating: 1 }],
    ] as const) {
      const response = await call(method, path, mine.token, body);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await json(response)).toMatchObject({
        code: "forbidden",
        error: expect.stringMatching(/own transaction/),
      });
    }
    expect(await snapshot()).toBe(before);
  });

  it("is refused on every other route that asks for a credential (403), its own transaction's other moves included", async () => {
    const mine = await purchase();
    const before = await snapshot();
    for (const [method, path, body] of [
      ["GET", "/api/agents/me", undefined],
      ["PATCH", "/api/agents/me", { name: "taken over" }],
      ["POST", "/api/listings", { title: "t", description: "d", price_wei: "1000000" }],
      ["POST", `/api/listings/${listing.id}/buy`, {}],
      ["GET", "/api/notifications", undefined],
      ["POST", "/api/wallet/withdraw", { to_address: mine.payer.address, amount_wei: "1" }],
      ["POST", "/api/messages/send", { to_agent_id: seller.id, content: "hi" }],
      ["GET", `/api/transactions/${mine.id}/timeline`, undefined],
      ["POST", `/api/transactions/${mine.id}/deliver`, { deliverable: "me" }],
      ["POST", `/api/transactions/${mine.id}/refund`, {}],
    ] as const) {
      const response = await call(method, path, mine.token, body);
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    expect(await snapshot()).toBe(before);
    // Public reads stay public: the token adds nothing there.
    expect((await call("GET", "/api/listings?limit=1", mine.token)).status).toBe(200);
  });

  it("that nobody holds is 401", async () => {
    const mine = await purchase();
    const forged = `rcpt_${randomBytes(32).toString("hex")}`;
    for (const path of [`/api/transactions/${mine.id}`, `/api/transactions/${mine.id}/deliverable`, "/api/listings"]) {
      const response = await call("GET", path, forged);
      expect(response.status, path).toBe(401);
    }
  });

  it("spends its buyer's request budget", async () => {
    const mine = await purchase();
    const limits: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i <= PER_MINUTE; i++) {
      const response = await call("GET", `/api/transactions/${mine.id}`, mine.token);
      if (response.status === 429) {
        refused = response;
        break;
      }
      limits.push(Number(response.headers.get("ratelimit-limit")));
    }
    expect(new Set(limits)).toEqual(new Set([PER_MINUTE]));
    expect(refused?.status).toBe(429);
    expect(await json(refused as Response)).toMatchObject({ code: "rate_limited" });
  });
});

describe("a buyer that lost its receipt token", () => {
  it("signs in with the paying wallet and acts as the same agent (X-Agent-Id)", async () => {
    const mine = await purchase();
    const session = await sessionOf(t.app, mine.payer, market.chainId);
    expect(
      (await call("POST", `/api/transactions/${mine.id}/deliver`, seller.key, { deliverable: "done" })).status,
    ).toBe(200);
    const released = await t.app.request(`/api/transactions/${mine.id}/release`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session}`, "X-Agent-Id": mine.buyer },
      body: "{}",
    });
    expect(released.status).toBe(200);
    expect(await json(released)).toMatchObject({ state: "RELEASED" });
  });
});
