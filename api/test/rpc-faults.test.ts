import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createListing, get, json, registerHosted, type TestApp, testApp, usdcBalance } from "./harness.ts";
import { startRpcProxy } from "./rpc-proxy.ts";

/*
 * The node fails between the API and the chain, through an RPC proxy (the only thing injected):
 * down, slow, or swallowing the answer of a broadcast it did pass on. The API answers a clear 503
 * while it cannot reach the chain, never a 402, a 409 or a 500 built on an error of the network;
 * no money moves twice, and every purchase ends in the state the chain holds.
 */

const PRICE = 2_000_000n;
let t: TestApp;
let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
beforeAll(async () => {
  proxy = await startRpcProxy(inject("stack").rpcUrl);
  t = await testApp({ rpcUrl: proxy.url });
});
afterAll(async () => {
  await t.close();
  await proxy.close();
});

async function transactionsOf(buyerId: string): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM app.transactions WHERE buyer_agent_id = ${buyerId}`,
  );
  return rows[0]?.n ?? 0;
}

const buy = (listingId: string, key: string, idempotencyKey: string) =>
  t.app.request(`/api/listings/${listingId}/buy`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "idempotency-key": idempotencyKey },
    body: "{}",
  });

describe("the node fails between the API and the chain", () => {
  it("down: a buy answers 503 chain_unavailable and moves nothing; health says so; afterwards the same Idempotency-Key funds once", async () => {
    const seller = await registerHosted(t.app, "rpc seller");
    const buyer = await registerHosted(t.app, "rpc buyer", 10n * PRICE);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const before = await usdcBalance(buyer.wallet);
    const broadcasts = proxy.broadcasts;

    proxy.setFault("down");
    try {
      const refused = await buy(listing.id, buyer.key, "rpc-down-1");
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("2");
      expect(await json(refused)).toMatchObject({ code: "chain_unavailable", error: expect.any(String) });
      const health = await get(t.app, "/api/health");
      expect(health.status).toBe(503);
      expect((await json(health)).chain.ok).toBe(false);
    } finally {
      proxy.setFault("none");
    }
    expect(proxy.broadcasts).toBe(broadcasts);
    expect(await usdcBalance(buyer.wallet)).toBe(before);

    // Nothing was sent, so the same Idempotency-Key runs again (not 409 in progress).
    const bought = await buy(listing.id, buyer.key, "rpc-down-1");
    expect(bought.status).toBe(200);
    expect(bought.headers.get("idempotent-replayed")).toBeNull();
    const answer = await json(bought);
    expect(answer.state).toBe("FUNDED");
    expect(await usdcBalance(buyer.wallet)).toBe(before - PRICE);
    expect(await transactionsOf(buyer.id)).toBe(1);
  });

  it("slow (0.7 s a call): the purchase is still right", async () => {
    const seller = await registerHosted(t.app, "slow seller");
    const buyer = await registerHosted(t.app, "slow buyer", 10n * PRICE);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const before = await usdcBalance(buyer.wallet);
    proxy.setFault("slow", { delayMs: 700 });
    try {
      const bought = await buy(listing.id, buyer.key, "rpc-slow-1");
      expect(bought.status).toBe(200);
      expect((await json(bought)).state).toBe("FUNDED");
    } finally {
      proxy.setFault("none");
    }
    expect(await usdcBalance(buyer.wallet)).toBe(before - PRICE);
  });

  it("a broadcast whose answer is lost: the node has it; the buy ends FUNDED and the buyer pays once", async () => {
    const seller = await registerHosted(t.app, "held seller");
    const buyer = await registerHosted(t.app, "held buyer", 10n * PRICE);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const before = await usdcBalance(buyer.wallet);
    proxy.setFault("hold-broadcast");
    let status: number;
    let body: { state?: string; code?: string; transaction_id?: string };
    try {
      const bought = await buy(listing.id, buyer.key, "rpc-held-1");
      status = bought.status;
      body = await json(bought);
    } finally {
      proxy.setFault("none");
    }
    // The relayer does not trust the silence: it finds the receipt of what it sent.
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.state).toBe("FUNDED");
    expect(await usdcBalance(buyer.wallet)).toBe(before - PRICE);
    // A retry of the same request is answered from the record: nothing is sent again.
    const broadcasts = proxy.broadcasts;
    const again = await buy(listing.id, buyer.key, "rpc-held-1");
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await json(again)).transaction_id).toBe(body.transaction_id);
    expect(proxy.broadcasts).toBe(broadcasts);
    expect(await usdcBalance(buyer.wallet)).toBe(before - PRICE);
    expect(await transactionsOf(buyer.id)).toBe(1);
  });
});
