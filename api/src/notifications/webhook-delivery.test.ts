import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { verifyWebhook } from "@agent-marketplace/sdk";
import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, patch, post, registerAgent, type TestApp, testApp } from "../../test/harness.ts";
import type { Config } from "../config.ts";
import { createDatabase } from "../db/client.ts";
import { notify } from "./notify.ts";
import { newWebhookSecret } from "./webhook-secret.ts";
import { createWebhookSender } from "./webhook-sender.ts";
import { systemWebhookLookup, type WebhookLookup } from "./webhook-url.ts";

/*
 * Webhook delivery under hostile receivers, on the suite's Postgres with real HTTP receivers on
 * this machine: a receiver that never answers delays only itself; one delivery at a time per
 * endpoint, across two senders (two API processes); the circuit that pauses an endpoint after
 * failures in a row and tells its agent; the test delivery; and targets refused at delivery time
 * when private addresses are not allowed.
 */

type Behaviour = "ok" | "fail" | "stall" | { delayMs: number };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A receiver whose paths each behave as told: answer 200, 500, never, or 200 after a delay. */
function startReceiver() {
  const received: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const stalled: ServerResponse[] = [];
  const inFlight = new Map<string, number>();
  const mostInFlight = new Map<string, number>();
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "";
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString(), at: Date.now() });
      const behaviour = behaviours.get(path) ?? "ok";
      if (behaviour === "stall") {
        stalled.push(response);
        return;
      }
      if (typeof behaviour === "object") {
        const now = (inFlight.get(path) ?? 0) + 1;
        inFlight.set(path, now);
        mostInFlight.set(path, Math.max(now, mostInFlight.get(path) ?? 0));
        setTimeout(() => {
          inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
          response.writeHead(200).end();
        }, behaviour.delayMs);
        return;
      }
      response.writeHead(behaviour === "fail" ? 500 : 200).end();
    });
  });
  server.on("connection", () => connections++);
  let paths = 0;
  return new Promise<{
    url: (behaviour?: Behaviour) => string;
    behave: (url: string, behaviour: Behaviour) => void;
    to: (url: string) => Received[];
    mostInFlight: (url: string) => number;
    connections: () => number;
    port: number;
    close: () => Promise<void>;
  }>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      const pathOf = (url: string) => new URL(url).pathname;
      resolve({
        url(behaviour = "ok") {
          const path = `/hook/${++paths}`;
          behaviours.set(path, behaviour);
          return `http://127.0.0.1:${port}${path}`;
        },
        behave: (url, behaviour) => behaviours.set(pathOf(url), behaviour),
        to: (url) => received.filter((r) => r.path === pathOf(url)),
        mostInFlight: (url) => mostInFlight.get(pathOf(url)) ?? 0,
        connections: () => connections,
        port,
        close: () =>
          new Promise((done) => {
            for (const response of stalled) response.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const silent = pino({ level: "silent" });
beforeAll(async () => {
  t = await testApp();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

type Agent = Awaited<ReturnType<typeof registerAgent>>;

async function hookedAgent(url: string): Promise<Agent & { secret: string; url: string }> {
  const agent = await registerAgent(t.app, "hooked");
  const body = await json(await patch(t.app, "/api/agents/me", { webhook_url: url }, agent.key));
  expect(body.webhook_url, JSON.stringify(body)).toBe(url);
  return { ...agent, secret: body.webhook_secret, url };
}

/** A notification for the agent (as a message would make), with its webhook delivery. */
async function message(to: Agent, content = "hello") {
  await notify(t.db, [
    { agentId: to.id, kind: "message.received", payload: { content }, dedupeKey: `test:${randomUUID()}` },
  ]);
}

async function webhookLog(agent: Agent) {
  return json(await get(t.app, "/api/agents/me/webhook/deliveries?limit=100", agent.key));
}

function senderWith(webhooks: Partial<Config["webhooks"]>, lookup?: WebhookLookup, db = t.db) {
  return createWebhookSender({
    db,
    config: { ...t.config, webhooks: { ...t.config.webhooks, ...webhooks } },
    logger: silent,
    lookup,
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Ends what other tests left due (other files' receivers are gone), so each test starts clean. */
async function settleLeftovers() {
  await t.db.execute(sql`UPDATE app.webhook_deliveries SET status = 'failed' WHERE status = 'pending'`);
}

describe("targets refused at delivery time (private addresses not allowed)", () => {
  it("a URL whose name now resolves to loopback is refused: no connection, no status, a generic error", async () => {
    await settleLeftovers();
    const rebound = await hookedAgent(receiver.url());
    const local = await hookedAgent(receiver.url());
    // Set when they resolved elsewhere; now one resolves to loopback (rebinding), one is localhost.
    const reboundUrl = `http://rebound.test:${receiver.port}/hook`;
    const localUrl = `http://localhost:${receiver.port}/hook`;
    await t.db.execute(sql`UPDATE app.agents SET webhook_url = ${reboundUrl} WHERE id = ${rebound.id}`);
    await t.db.execute(sql`UPDATE app.agents SET webhook_url = ${localUrl} WHERE id = ${local.id}`);
    await message(rebound);
    await message(local);
    const lookups: string[] = [];
    const resolver: WebhookLookup = async (name) => {
      lookups.push(name);
      // rebound.test resolves to loopback now; localhost is the system resolver's.
      return name === "rebound.test" ? [{ address: "127.0.0.1", family: 4 }] : systemWebhookLookup(name);
    };
    const strict = senderWith({ allowPrivateAddresses: false }, resolver);
    const connectionsBefore = receiver.connections();
    expect(await strict.tick()).toBe(2);
    expect(lookups.sort()).toEqual(["localhost", "rebound.test"]);
    for (const agent of [rebound, local]) {
      const [delivery] = (await webhookLog(agent)).deliveries;
      expect(delivery).toMatchObject({
        status: "pending",
        attempts: 1,
        last_status_code: null,
        last_error: "target refused",
      });
    }
    expect(receiver.connections()).toBe(connectionsBefore);
    expect(receiver.to(reboundUrl)).toHaveLength(0);
  });

  it("setting such a URL is refused with its reason; a test delivery to a refused target sends nothing", async () => {
    const strict = await testApp({ webhooks: { ...t.config.webhooks, allowPrivateAddresses: false } });
    try {
      const agent = await registerAgent(strict.app, "strict");
      const refused = await patch(
        strict.app,
        "/api/agents/me",
        { webhook_url: `http://[::ffff:7f00:1]:${receiver.port}/hook` },
        agent.key,
      );
      expect(refused.status).toBe(400);
      expect((await json(refused)).error).toMatch(/IPv4-mapped loopback/);
      const named = await patch(
        strict.app,
        "/api/agents/me",
        { webhook_url: `http://localhost:${receiver.port}/hook` },
        agent.key,
      );
      expect(named.status).toBe(400);
      expect((await json(named)).error).toMatch(/localhost resolves to a loopback/);
      // A URL set when it resolved elsewhere.
      const { sealed } = newWebhookSecret(agent.id, strict.config.masterKey);
      await strict.db.execute(
        sql`UPDATE app.agents SET webhook_url = ${`http://localhost:${receiver.port}/hook`}, webhook_secret_encrypted = ${sealed} WHERE id = ${agent.id}`,
      );
      const connectionsBefore = receiver.connections();
      const tested = await post(strict.app, "/api/agents/me/webhook/test", {}, agent.key);
      expect(tested.status).toBe(200);
      expect(await json(tested)).toEqual({
        delivered: false,
        status: null,
        error: "target refused",
        duration_ms: null,
      });
      expect(receiver.connections()).toBe(connectionsBefore);
    } finally {
      await strict.close();
    }
  });
});

describe("one endpoint's trouble is its own", () => {
  it("receivers that never answer delay only themselves: a healthy agent's delivery arrives within 2 s", async () => {
    await settleLeftovers();
    // The stalled receivers hold their deliveries for the whole of a long timeout.
    const sender = senderWith({ timeoutMs: 20_000, retryBaseMs: 60_000 });
    const stalled = await Promise.all(Array.from({ length: 6 }, () => hookedAgent(receiver.url("stall"))));
    for (const agent of stalled) {
      for (let i = 0; i < 3; i++) await message(agent, `stuck ${i}`);
    }
    const healthy = await hookedAgent(receiver.url("ok"));
    const stop = sender.start(100);
    try {
      // Every stalled endpoint has its one delivery in flight, and no second one.
      await until("the stalled receivers' requests", async () =>
        stalled.every((agent) => receiver.to(agent.url).length === 1),
      );
      const sent = Date.now();
      await message(healthy, "are you there?");
      const arrived = await until("the healthy delivery", async () => receiver.to(healthy.url)[0]);
      expect(arrived.at - sent).toBeLessThan(2_000);
      for (const agent of stalled) expect(receiver.to(agent.url)).toHaveLength(1);
    } finally {
      await stop();
    }
    // Stopping interrupted the stalled attempts: not counted, due again.
    for (const agent of stalled) {
      const { deliveries } = await webhookLog(agent);
      expect(deliveries.map((d: { status: string }) => d.status)).toEqual(["pending", "pending", "pending"]);
      expect(deliveries.map((d: { attempts: number }) => d.attempts)).toEqual([0, 0, 0]);
    }
    await settleLeftovers();
  });

  it("two senders (two API processes) never have two deliveries to one endpoint in flight; each arrives once", async () => {
    await settleLeftovers();
    const slow = await hookedAgent(receiver.url({ delayMs: 150 }));
    const other = await hookedAgent(receiver.url({ delayMs: 150 }));
    for (let i = 0; i < 4; i++) {
      await message(slow, `slow ${i}`);
      await message(other, `other ${i}`);
    }
    const secondDb = createDatabase(t.config.databaseUrl, { max: 3 });
    const stops = [senderWith({}).start(20), senderWith({}, undefined, secondDb).start(20)];
    try {
      for (const agent of [slow, other]) {
        await until("every delivery", async () => {
          const { deliveries } = await webhookLog(agent);
          return deliveries.every((d: { status: string }) => d.status === "delivered") && deliveries.length === 4;
        });
      }
    } finally {
      await Promise.all(stops.map((stop) => stop()));
      await secondDb.$client.end();
    }
    for (const agent of [slow, other]) {
      expect(receiver.mostInFlight(agent.url)).toBe(1);
      const ids = receiver.to(agent.url).map((r) => r.headers["x-notification-id"]);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
    }
  });
});

describe("the circuit", () => {
  it("pauses an endpoint after failures in a row, tells its agent, and resumes on a successful test or a new URL", async () => {
    await settleLeftovers();
    const sender = senderWith({ pauseAfterFailures: 3, retryBaseMs: 40, maxAttempts: 10 });
    const agent = await hookedAgent(receiver.url("fail"));
    await message(agent, "first");
    await message(agent, "second");
    const paused = await until("the pause", async () => {
      await sender.tick();
      const { endpoint } = await webhookLog(agent);
      return endpoint?.paused_at ? endpoint : undefined;
    });
    expect(paused).toMatchObject({ consecutive_failures: 3 });
    expect(receiver.to(agent.url)).toHaveLength(3);

    // The agent is told, once.
    const notified = (await json(await get(t.app, "/api/notifications?limit=100", agent.key))).notifications.filter(
      (n: { kind: string }) => n.kind === "webhook.paused",
    );
    expect(notified).toHaveLength(1);
    expect(notified[0].payload).toEqual({
      url: agent.url,
      consecutive_failures: 3,
      last_status_code: 500,
      last_error: "HTTP 500",
      paused_at: paused.paused_at,
    });

    // Paused: nothing more is sent, well past every backoff; new deliveries wait.
    await message(agent, "while paused");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (let i = 0; i < 3; i++) await sender.tick();
    expect(receiver.to(agent.url)).toHaveLength(3);
    const waiting = (await webhookLog(agent)).deliveries;
    expect(waiting.filter((d: { status: string }) => d.status === "pending")).toHaveLength(4);

    // A test delivery goes anyway; a failing one leaves it paused.
    const failedTest = await json(await post(t.app, "/api/agents/me/webhook/test", {}, agent.key));
    expect(failedTest).toMatchObject({ delivered: false, status: 500, error: "HTTP 500" });
    expect(failedTest.duration_ms).toBeGreaterThanOrEqual(0);
    expect((await webhookLog(agent)).endpoint.paused_at).toBe(paused.paused_at);

    // The receiver is fixed: a successful test resumes it, and the queue goes out.
    receiver.behave(agent.url, "ok");
    const test = await json(await post(t.app, "/api/agents/me/webhook/test", {}, agent.key));
    expect(test).toMatchObject({ delivered: true, status: 200 });
    expect(test.error).toBeUndefined();
    const testEvent = receiver.to(agent.url).at(-1) as Received;
    const verified = await verifyWebhook(agent.secret, testEvent.headers["x-signature"], testEvent.body);
    expect(verified).toMatchObject({ kind: "webhook.test", agent_id: agent.id });
    expect((await webhookLog(agent)).endpoint).toEqual({
      paused_at: null,
      consecutive_failures: 0,
      next_attempt_at: null,
    });
    await until("the queue delivered", async () => {
      await sender.tick();
      const { deliveries } = await webhookLog(agent);
      return deliveries.every((d: { status: string }) => d.status === "delivered");
    });
    // The first, the second, the pause notice and the one sent while paused; the test is not logged.
    expect((await webhookLog(agent)).deliveries).toHaveLength(4);

    // Failing again pauses it again (a second notice); setting the URL again resumes it.
    receiver.behave(agent.url, "fail");
    await message(agent, "again");
    await until("the second pause", async () => {
      await sender.tick();
      return (await webhookLog(agent)).endpoint.paused_at;
    });
    const kinds = (await json(await get(t.app, "/api/notifications?limit=100", agent.key))).notifications.map(
      (n: { kind: string }) => n.kind,
    );
    expect(kinds.filter((kind: string) => kind === "webhook.paused")).toHaveLength(2);
    receiver.behave(agent.url, "ok");
    expect((await patch(t.app, "/api/agents/me", { webhook_url: agent.url }, agent.key)).status).toBe(200);
    expect((await webhookLog(agent)).endpoint).toMatchObject({ paused_at: null, consecutive_failures: 0 });
    await until("the queue delivered after the new URL", async () => {
      await sender.tick();
      const { deliveries } = await webhookLog(agent);
      return deliveries.every((d: { status: string }) => d.status === "delivered");
    });
  });
});

describe("POST /api/agents/me/webhook/test", () => {
  it("sends a signed webhook.test event now and answers what the receiver did; 409 without a webhook", async () => {
    const bare = await registerAgent(t.app, "no webhook");
    const refused = await post(t.app, "/api/agents/me/webhook/test", {}, bare.key);
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ code: "webhook_not_set", error: expect.any(String) });

    const agent = await hookedAgent(receiver.url("ok"));
    const response = await post(t.app, "/api/agents/me/webhook/test", {}, agent.key);
    expect(response.status).toBe(200);
    const answer = await json(response);
    expect(answer).toEqual({ delivered: true, status: 200, duration_ms: expect.any(Number) });
    const [got] = receiver.to(agent.url) as [Received];
    expect(got.headers["x-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got.headers["x-webhook-event"]).toBe("webhook.test");
    expect(await verifyWebhook(agent.secret, got.headers["x-signature"], got.body)).toMatchObject({
      kind: "webhook.test",
      agent_id: agent.id,
      payload: expect.any(Object),
    });
    // Not a notification, not in the delivery log.
    expect((await webhookLog(agent)).deliveries).toHaveLength(0);

    // A receiver that does not answer in time.
    const quick = await testApp({ webhooks: { ...t.config.webhooks, timeoutMs: 300 } });
    try {
      const slow = await registerAgent(quick.app, "slow");
      const url = receiver.url("stall");
      expect((await patch(quick.app, "/api/agents/me", { webhook_url: url }, slow.key)).status).toBe(200);
      const timedOut = await json(await post(quick.app, "/api/agents/me/webhook/test", {}, slow.key));
      expect(timedOut).toMatchObject({ delivered: false, status: null, error: "timed out after 300 ms" });
      expect(timedOut.duration_ms).toBeGreaterThanOrEqual(290);
    } finally {
      await quick.close();
    }
  });
});
