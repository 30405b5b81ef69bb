import { randomBytes, randomUUID } from "node:crypto";
import { indexedBlock } from "@agent-marketplace/indexer";
import { freePort as closedPort } from "@agent-marketplace/indexer/local-postgres";
import { sql } from "drizzle-orm";
import pino from "pino";
import { formatEther } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { indexed, testMarket } from "../../../test/escrow.ts";
import { eventStreamReader } from "../../../test/event-stream.ts";
import {
  connectionFrom,
  createListing,
  get,
  json,
  patch,
  post,
  registerHosted,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { startRpcProxy } from "../../../test/rpc-proxy.ts";
import { createWebhookSender } from "../../notifications/webhook-sender.ts";

/*
 * GET /metrics, GET /api/ready and GET /api/live on the suite's real Postgres, chain and indexer:
 * the series count what this app served (its requests by route pattern, a refused rate limit, an
 * open stream) and show what Postgres and the chain hold (a funded escrow, the relayer's outbox and
 * account, webhook deliveries, the indexer's lag), each compared with a reading of its own; only
 * this machine or the token's holder may scrape. The indexer's lag is made by an RPC proxy whose
 * eth_blockNumber answers 50 blocks past the node (a node ahead of the indexer's), the chain's
 * outage by the same proxy, the database's by ending the app's pools: a part that cannot be read
 * leaves its series out, the scrape still answers, and liveness never asks either.
 */

const TOKEN = `metrics-${randomBytes(16).toString("hex")}`;
const PRICE = 1_500_000n;
const silent = pino({ level: "silent" });
const OUTSIDER = connectionFrom("203.0.113.9");

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ metricsToken: TOKEN, messagesPerMinute: 2 });
});
afterAll(() => t.close());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (comments skipped). */
function samplesOf(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const [, name = "", labelText = "", value = ""] = match;
    const labels = Object.fromEntries(
      [...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key = "", text = ""]) => [key, text]),
    );
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}

/** The scrape of `app` as this machine makes it: its samples, and a reader of one series. */
async function scrape(app: TestApp["app"]) {
  const response = await app.request("/metrics");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const samples = samplesOf(text);
  /** The value of the series `name` whose labels include `labels`; undefined when absent. */
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples.find(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
    )?.value;
  return { text, samples, value };
}

async function indexerCaughtUp(): Promise<void> {
  await indexed(t.db, { blockNumber: await testMarket().publicClient.getBlockNumber() });
}

describe("GET /metrics", () => {
  it("counts this app's requests by route pattern, its rate-limit refusals and open streams; reads escrows, relayer, webhooks and indexer", async () => {
    const seller = await registerHosted(t.app, "metrics seller");
    const buyer = await registerHosted(t.app, "metrics buyer", 10n * PRICE);
    const hook = `http://127.0.0.1:${await closedPort()}/hook`;
    expect((await patch(t.app, "/api/agents/me", { webhook_url: hook }, seller.key)).status).toBe(200);
    const before = await scrape(t.app);

    // A funded escrow (the relayer sends for the hosted buyer).
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
    expect(bought.state).toBe("FUNDED");
    await indexerCaughtUp();

    // Requests by route pattern: three reads of the listing, one unknown path.
    for (let i = 0; i < 3; i++) expect((await get(t.app, `/api/listings/${listing.id}`)).status).toBe(200);
    const unknown = `no-such-${randomUUID()}`;
    expect((await get(t.app, `/api/${unknown}`)).status).toBe(404);

    // Messages per minute (2 here): the third is refused. Each delivered one is a webhook delivery.
    for (const content of ["one", "two"]) {
      expect((await post(t.app, "/api/messages", { to_agent_id: seller.id, content }, buyer.key)).status).toBe(201);
    }
    const refused = await post(t.app, "/api/messages", { to_agent_id: seller.id, content: "three" }, buyer.key);
    expect(refused.status).toBe(429);

    // A stream, open until closed.
    const stream = await t.app.request("/api/notifications/stream", {
      headers: { authorization: `Bearer ${seller.key}` },
    });
    expect(stream.status).toBe(200);
    const events = eventStreamReader(stream.body as ReadableStream<Uint8Array>);
    expect((await events.next()).event).toBe("ready");

    const now = await scrape(t.app);
    const { value } = now;
    const duration = "marketplace_http_request_duration_seconds_count";
    expect(value(duration, { method: "GET", route: "/api/listings/:id", status: "200" })).toBe(3);
    expect(value(duration, { method: "POST", route: "/api/listings/:id/buy", status: "200" })).toBe(1);
    expect(value(duration, { method: "GET", route: "(unmatched)", status: "404" })).toBe(1);
    // The refused request is labelled by its route, not by the budget's middleware.
    expect(value(duration, { method: "POST", route: "/api/messages", status: "429" })).toBe(1);
    // Route patterns only: no id or path a client sent is a label.
    expect(now.text).not.toContain(listing.id);
    expect(now.text).not.toContain(unknown);

    expect(value("marketplace_rate_limit_refusals_total", { limit: "messages" })).toBe(1);
    for (const limit of ["per_caller", "per_ip", "registrations"]) {
      expect(value("marketplace_rate_limit_refusals_total", { limit }), limit).toBe(0);
    }
    expect(value("marketplace_notification_streams_open")).toBe(1);

    // Every part was read.
    for (const part of [
      "escrows",
      "credits",
      "relayer_outbox",
      "relayer_accounts",
      "webhooks",
      "indexer",
      "chain_head",
    ]) {
      expect(value("marketplace_scrape_part_up", { part }), part).toBe(1);
    }

    // Escrows by state: every state, as the indexed rows count them.
    const { rows: states } = await t.db.execute<{ status: string; n: number }>(
      sql`SELECT status, count(*)::int AS n FROM chain.escrow WHERE chain_id = ${t.config.chainId} GROUP BY status`,
    );
    const counted = new Map(states.map((row) => [row.status, row.n]));
    for (const state of ["FUNDED", "DELIVERED", "DISPUTED", "RELEASED", "REFUNDED", "RESOLVED"]) {
      expect(value("marketplace_escrows", { state }), state).toBe(counted.get(state) ?? 0);
    }
    expect(value("marketplace_escrows", { state: "FUNDED" })).toBeGreaterThan(
      before.value("marketplace_escrows", { state: "FUNDED" }) ?? 0,
    );

    // The relayer: its outbox and its account on chain.
    const { relayer } = t.services;
    const { rows: outbox } = await t.db.execute<{ last: number | null; pending: number }>(sql`
      SELECT max(nonce) AS last, count(*) FILTER (WHERE status = 'signed')::int AS pending
      FROM app.relayed_transactions WHERE chain_instance = ${relayer.chainInstance} AND from_address = ${relayer.address}`);
    expect(outbox[0]?.last).not.toBeNull();
    expect(value("marketplace_relayer_last_used_nonce", { account: "relayer" })).toBe(outbox[0]?.last);
    expect(value("marketplace_relayer_pending_transactions", { account: "relayer" })).toBe(outbox[0]?.pending);
    const { publicClient } = t.services.chain;
    const mined = await publicClient.getTransactionCount({ address: relayer.address, blockTag: "latest" });
    expect(mined).toBeGreaterThan(0);
    expect(value("marketplace_relayer_chain_next_nonce", { account: "relayer", block: "latest" })).toBe(mined);
    expect(value("marketplace_relayer_chain_next_nonce", { account: "relayer", block: "pending" })).toBe(
      await publicClient.getTransactionCount({ address: relayer.address, blockTag: "pending" }),
    );
    // Every send of the outbox is mined here: the next nonce follows the last one used.
    expect(value("marketplace_relayer_last_used_nonce", { account: "relayer" })).toBe(mined - 1);
    const balance = Number(formatEther(await publicClient.getBalance({ address: relayer.address })));
    expect(balance).toBeGreaterThan(0);
    expect(value("marketplace_relayer_balance_ether", { account: "relayer" })).toBeCloseTo(balance, 9);
    expect(value("marketplace_relayer_info", { account: "relayer", address: relayer.address })).toBe(1);
    // The arbiter (configured in tests) is the other service account.
    expect(value("marketplace_relayer_balance_ether", { account: "arbiter" })).toBeGreaterThan(0);

    // Webhooks: the two messages wait for the seller's hook, due now.
    const webhookCounts = async () => {
      const { rows } = await t.db.execute<{ pending: number; failed: number; paused: number }>(sql`
        SELECT (SELECT count(*)::int FROM app.webhook_deliveries WHERE status = 'pending') AS pending,
               (SELECT count(*)::int FROM app.webhook_deliveries WHERE status = 'failed') AS failed,
               (SELECT count(*)::int FROM app.webhook_endpoints WHERE paused_at IS NOT NULL) AS paused`);
      return rows[0];
    };
    const waiting = await webhookCounts();
    expect(value("marketplace_webhook_deliveries_pending")).toBe(waiting?.pending);
    expect(value("marketplace_webhook_deliveries_pending")).toBeGreaterThanOrEqual(
      (before.value("marketplace_webhook_deliveries_pending") ?? 0) + 2,
    );
    expect(value("marketplace_webhook_deliveries_due")).toBeGreaterThanOrEqual(2);
    expect(value("marketplace_webhook_oldest_due_age_seconds")).toBeGreaterThanOrEqual(0);

    // One attempt each, and an endpoint paused at its first failure: the hook's port is closed.
    const sender = createWebhookSender({
      db: t.db,
      config: { ...t.config, webhooks: { ...t.config.webhooks, maxAttempts: 1, pauseAfterFailures: 1 } },
      logger: silent,
    });
    expect(await sender.tick()).toBeGreaterThan(0);
    const after = await scrape(t.app);
    const gaveUp = await webhookCounts();
    expect(after.value("marketplace_webhook_deliveries_failed")).toBe(gaveUp?.failed);
    expect(after.value("marketplace_webhook_deliveries_failed")).toBeGreaterThan(
      value("marketplace_webhook_deliveries_failed") ?? 0,
    );
    expect(after.value("marketplace_webhook_endpoints_paused")).toBe(gaveUp?.paused);
    expect(after.value("marketplace_webhook_endpoints_paused")).toBeGreaterThan(
      value("marketplace_webhook_endpoints_paused") ?? 0,
    );

    // The indexer: its checkpoint, the head, and the lag between them.
    const head = await publicClient.getBlockNumber({ cacheTime: 0 });
    const checkpoint = await indexedBlock((text) => t.db.$client.query(text), t.config.chainId);
    expect(after.value("marketplace_chain_head_block")).toBe(Number(head));
    expect(after.value("marketplace_indexer_indexed_block")).toBe(Number(checkpoint));
    expect(after.value("marketplace_indexer_lag_blocks")).toBe(Number(head - (checkpoint ?? 0n)));

    // Node's own series come along.
    expect(after.value("process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(after.value("nodejs_heap_size_used_bytes")).toBeGreaterThan(0);

    await events.close();
    await expect
      .poll(async () => (await scrape(t.app)).value("marketplace_notification_streams_open"), { timeout: 5_000 })
      .toBe(0);
  });

  it("answers this machine, or another with Authorization: Bearer <METRICS_TOKEN>; refuses anyone else with 403", async () => {
    const refused = await t.app.request("/metrics", {}, OUTSIDER);
    expect(refused.status).toBe(403);
    expect(await json(refused)).toEqual({
      error: expect.stringContaining("METRICS_TOKEN"),
      code: "forbidden",
      request_id: expect.any(String),
    });
    const wrong = await t.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}x` } }, OUTSIDER);
    expect(wrong.status).toBe(403);
    // A proxy on this machine forwarding a client from elsewhere: that client is not this machine.
    const forwarded = await t.app.request("/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(forwarded.status).toBe(403);
    const admitted = await t.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }, OUTSIDER);
    expect(admitted.status).toBe(200);
    expect(await admitted.text()).toContain("# TYPE marketplace_http_request_duration_seconds histogram");
  });

  it("is not part of the OpenAPI document; the probes are", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(Object.keys(document.paths)).not.toContain("/metrics");
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/ready", "/api/live"]));
    const info = await json(await get(t.app, "/api/info"));
    expect(info.links).toMatchObject({ health: "/api/health", ready: "/api/ready", live: "/api/live" });
  });
});

describe("GET /api/ready and GET /api/live", () => {
  let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
  let behind: TestApp;
  beforeAll(async () => {
    proxy = await startRpcProxy(inject("stack").rpcUrl);
    behind = await testApp({ rpcUrl: proxy.url });
  });
  afterAll(async () => {
    await behind.close();
    await proxy.close();
  });

  it("ready is 200 while the indexer is within READY_MAX_LAG_BLOCKS of the head, 503 saying so while it lags", async () => {
    await indexerCaughtUp();
    const caughtUp = await get(behind.app, "/api/ready");
    expect(caughtUp.status).toBe(200);
    expect(await json(caughtUp)).toMatchObject({
      status: "ready",
      database: { ok: true },
      chain: { ok: true, chain_id: behind.config.chainId },
      indexer: { ok: true, max_lag_blocks: 5 },
    });

    proxy.setHeadAhead(50);
    try {
      const lagging = await get(behind.app, "/api/ready");
      expect(lagging.status).toBe(503);
      const body = await json(lagging);
      expect(body).toMatchObject({
        status: "not_ready",
        database: { ok: true },
        chain: { ok: true },
        indexer: { ok: false, max_lag_blocks: 5 },
      });
      expect(BigInt(body.indexer.lag_blocks)).toBeGreaterThanOrEqual(50n);
      expect(BigInt(body.chain.head_block) - BigInt(body.indexer.indexed_block)).toBe(BigInt(body.indexer.lag_blocks));
      const { value } = await scrape(behind.app);
      expect(value("marketplace_indexer_lag_blocks")).toBeGreaterThanOrEqual(50);

      // A wider READY_MAX_LAG_BLOCKS takes the same lag.
      const tolerant = await testApp({ rpcUrl: proxy.url, readyMaxLagBlocks: 100 });
      try {
        const ready = await get(tolerant.app, "/api/ready");
        expect(ready.status).toBe(200);
        expect((await json(ready)).indexer).toMatchObject({ ok: true, max_lag_blocks: 100 });
      } finally {
        await tolerant.close();
      }
    } finally {
      proxy.setHeadAhead(0);
    }
    expect((await get(behind.app, "/api/ready")).status).toBe(200);
  });

  it("the chain down: ready 503, live 200, and the scrape answers without the chain's series", async () => {
    proxy.setFault("down");
    try {
      const ready = await get(behind.app, "/api/ready");
      expect(ready.status).toBe(503);
      expect(await json(ready)).toMatchObject({ status: "not_ready", database: { ok: true }, chain: { ok: false } });
      const live = await get(behind.app, "/api/live");
      expect(live.status).toBe(200);
      expect(await json(live)).toEqual({ status: "ok" });
      const { value } = await scrape(behind.app);
      expect(value("marketplace_scrape_part_up", { part: "chain_head" })).toBe(0);
      expect(value("marketplace_scrape_part_up", { part: "relayer_accounts" })).toBe(0);
      expect(value("marketplace_chain_head_block")).toBeUndefined();
      expect(value("marketplace_indexer_lag_blocks")).toBeUndefined();
      expect(value("marketplace_relayer_balance_ether", { account: "relayer" })).toBeUndefined();
      // What Postgres holds is still there.
      expect(value("marketplace_scrape_part_up", { part: "escrows" })).toBe(1);
      expect(value("marketplace_escrows", { state: "FUNDED" })).toBeGreaterThanOrEqual(0);
    } finally {
      proxy.setFault("none");
    }
  });

  it("the database gone: live 200, ready 503, and the scrape answers without the database's series", async () => {
    const gone = await testApp();
    await gone.close();
    const live = await get(gone.app, "/api/live");
    expect(live.status).toBe(200);
    const ready = await get(gone.app, "/api/ready");
    expect(ready.status).toBe(503);
    expect(await json(ready)).toMatchObject({
      status: "not_ready",
      database: { ok: false },
      chain: { ok: true },
      indexer: { ok: false, indexed_block: null },
    });
    const { value } = await scrape(gone.app);
    for (const part of ["escrows", "credits", "relayer_outbox", "webhooks", "indexer"]) {
      expect(value("marketplace_scrape_part_up", { part }), part).toBe(0);
    }
    expect(value("marketplace_escrow_credits_owed_usdc")).toBeUndefined();
    expect(value("marketplace_scrape_part_up", { part: "chain_head" })).toBe(1);
    expect(value("marketplace_escrows", { state: "FUNDED" })).toBeUndefined();
    expect(value("marketplace_webhook_deliveries_pending")).toBeUndefined();
    // Each app counts its own requests: the other apps' reads of listings are not here.
    expect(value("marketplace_http_request_duration_seconds_count", { route: "/api/listings/:id" })).toBeUndefined();
  });

  it("without METRICS_TOKEN, another machine is refused whatever it presents", async () => {
    const refused = await behind.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }, OUTSIDER);
    expect(refused.status).toBe(403);
    expect((await json(refused)).code).toBe("forbidden");
    expect((await behind.app.request("/metrics")).status).toBe(200);
  });
});
