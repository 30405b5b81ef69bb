import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { HttpRequestError } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../test/escrow.ts";
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
  usdcBalance,
} from "../../test/harness.ts";
import { markSent } from "../chain/sends-in-request.ts";
import type { GuardEnv } from "./env.ts";
import { errorResponse } from "./errors.ts";
import { idempotency } from "./idempotency.ts";

/*
 * Idempotency-Key on a write that pays (a hosted buy), on the suite's real chain: a retry is
 * answered from the record and pays nothing twice. Sends nothing from dev accounts.
 */
const PRICE = 1_500_000n;
let t: TestApp;
let _market: Market;
let listing: { id: string };

beforeAll(async () => {
  t = await testApp();
  _market = testMarket();
  listing = await createListing(t.app, await registerAgent(t.app, "seller"), { price_wei: PRICE.toString() });
});
afterAll(() => t.close());

const usdcOf = usdcBalance;

const hostedBuyer = (usdc: bigint) => registerHosted(t.app, "buyer", usdc);

function buy(key: string, idempotencyKey: string | undefined, body: unknown = {}) {
  return t.app.request(`/api/listings/${listing.id}/buy`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${key}`,
      ...(idempotencyKey !== undefined && { "idempotency-key": idempotencyKey }),
    },
    body: JSON.stringify(body),
  });
}

describe("Idempotency-Key", () => {
  it("a retry gets the same answer, marked replayed, and pays once", async () => {
    const buyer = await hostedBuyer(10n * USDC);
    const first = await buy(buyer.key, "order-1");
    expect(first.status).toBe(200);
    const answer = await json(first);
    const retry = await buy(buyer.key, "order-1");
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await json(retry)).toEqual(answer);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - PRICE);
    // Another key is another purchase.
    expect((await json(await buy(buyer.key, "order-2"))).transaction_id).not.toBe(answer.transaction_id);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - 2n * PRICE);
  });

  it("concurrent retries run once: one answer, the others 409 while it runs", async () => {
    const buyer = await hostedBuyer(10n * USDC);
    const statuses = (await Promise.all([1, 2, 3, 4].map(() => buy(buyer.key, "same")))).map((r) => r.status);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - PRICE);
    const after = await buy(buyer.key, "same");
    expect(after.status).toBe(200);
    expect(after.headers.get("idempotent-replayed")).toBe("true");
  });

  it("the same buy 50 times at once with one key: one purchase, one debit, no 5xx", async () => {
    const buyer = await hostedBuyer(10n * USDC);
    const before = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.transactions WHERE buyer_agent_id = ${buyer.id}`,
    );
    const responses = await Promise.all(Array.from({ length: 50 }, () => buy(buyer.key, "fifty")));
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(" "),
    ).toBe(true);
    const answers = await Promise.all(responses.filter((r) => r.status === 200).map((r) => json(r)));
    expect(new Set(answers.map((answer) => answer.transaction_id)).size).toBe(1);
    const after = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.transactions WHERE buyer_agent_id = ${buyer.id}`,
    );
    expect((after.rows[0]?.n ?? 0) - (before.rows[0]?.n ?? 0)).toBe(1);
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - PRICE);
  });

  it("the same key with another request is 422; a refusal is not kept", async () => {
    const buyer = await hostedBuyer(0n);
    expect((await buy(buyer.key, "k", {})).status).toBe(402);
    // Topped up, the same key now runs.
    await post(t.app, "/api/dev/faucet", { address: buyer.wallet, usdc_wei: (5n * USDC).toString() });
    expect((await buy(buyer.key, "k", {})).status).toBe(200);
    expect((await buy(buyer.key, "k", { deadline_hours: 5 })).status).toBe(422);
    expect(await usdcOf(buyer.wallet)).toBe(5n * USDC - PRICE);
  });

  it("keys are per agent, and must be printable ASCII up to 255 characters", async () => {
    const a = await hostedBuyer(5n * USDC);
    const b = await hostedBuyer(5n * USDC);
    const first = await json(await buy(a.key, "shared"));
    const second = await json(await buy(b.key, "shared"));
    expect(second.transaction_id).not.toBe(first.transaction_id);
    for (const bad of ["", "x".repeat(256), "naïve"]) {
      expect((await buy(a.key, bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect(await usdcOf(a.wallet)).toBe(5n * USDC - PRICE);
  });

  it("an owner's own writes are keyed by the owner; stored answers are sealed (an issued key is not in the table)", async () => {
    const owner = await sessionOf(t.app, newWallet(), t.config.chainId);
    const other = await sessionOf(t.app, newWallet(), t.config.chainId);
    const write = (session: string, path: string, body: unknown, key = "once") =>
      t.app.request(path, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${session}`, "idempotency-key": key },
        body: JSON.stringify(body),
      });
    const created = await json(await write(owner, "/api/owner/agents", { name: "owned once" }));
    const again = await write(owner, "/api/owner/agents", { name: "owned once" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await json(again)).agent.id).toBe(created.agent.id);
    // Another owner's "once" is its own key.
    expect((await json(await write(other, "/api/owner/agents", { name: "owned once" }))).agent.id).not.toBe(
      created.agent.id,
    );
    // "once" is taken by the registration: the key issue is another request (422), under its own key it runs.
    expect((await write(owner, `/api/owner/agents/${created.agent.id}/keys`, {})).status).toBe(422);
    const issued = await json(await write(owner, `/api/owner/agents/${created.agent.id}/keys`, {}, "issue"));
    expect(issued.api_key).toEqual(expect.any(String));
    const { rows } = await t.db.execute<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM app.idempotency_keys WHERE response_body LIKE ${`%${issued.api_key}%`}`,
    );
    expect(rows[0]?.n, "no stored answer holds the key in clear").toBe("0");
  });

  it("the same refused request 100 times at once with one key: each is refused or waits (409), never called another request (422)", async () => {
    // A refusal frees the key: a request whose claim met the refused run's row, and that reads it
    // just after the refusal removed it, must claim again, not take the key as used elsewhere.
    const agent = await registerAgent(t.app, "refused at once");
    const app = new Hono<GuardEnv>();
    app.use(requestId());
    app.onError(errorResponse);
    app.use(async (c, next) => {
      c.set("agent", { id: agent.id, keyId: "test", row: {} as never });
      await next();
    });
    app.use(idempotency(t.db, t.config.masterKey));
    app.post("/pay", async (c) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      return c.json({ error: "Insufficient USDC balance", code: "insufficient_balance" }, 402);
    });
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        app.request("/pay", { method: "POST", headers: { "idempotency-key": "refused" }, body: "{}" }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status !== 402 && status !== 409)).toEqual([]);
    expect(statuses).toContain(402);
  });

  it("a node unreachable before anything was sent frees the key; after a send it stays claimed (409)", async () => {
    const agent = await registerAgent(t.app, "node down");
    let sendsFirst = false;
    const app = new Hono<GuardEnv>();
    app.use(requestId());
    app.onError(errorResponse);
    app.use(async (c, next) => {
      c.set("agent", { id: agent.id, keyId: "test", row: {} as never });
      await next();
    });
    app.use(idempotency(t.db, t.config.masterKey));
    app.post("/pay", () => {
      if (sendsFirst) markSent();
      throw new HttpRequestError({ url: "http://node.invalid" });
    });
    const pay = (key: string) =>
      app.request("/pay", { method: "POST", headers: { "idempotency-key": key }, body: "{}" });

    const unsent = await pay("unsent");
    expect(unsent.status).toBe(503);
    expect(await json(unsent)).toMatchObject({ code: "chain_unavailable" });
    expect((await pay("unsent")).status).toBe(503);

    sendsFirst = true;
    expect((await pay("sent")).status).toBe(503);
    const retry = await pay("sent");
    expect(retry.status).toBe(409);
    expect(await json(retry)).toMatchObject({ code: "idempotency_key_in_progress" });
  });
});
