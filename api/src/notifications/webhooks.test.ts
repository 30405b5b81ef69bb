import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { verifyWebhook, WebhookVerificationError } from "@agent-marketplace/sdk";
import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, patch, post, registerAgent, type TestApp, testApp } from "../../test/harness.ts";
import { createWebhookSender, retryDelayMs } from "./webhook-sender.ts";

/*
 * Webhooks end to end on the suite's Postgres, with a real HTTP receiver on this machine: the
 * secret shown once, signed deliveries, retries with backoff after a failing answer, failure after
 * the last attempt, redelivery, a rotated secret, and URLs that may not receive webhooks.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver that answers each request with the next status of its path's script (then 200): each
 * agent of a test gets a path of its own, so no test answers another's deliveries.
 */
function startReceiver() {
  const received: Received[] = [];
  const scripts = new Map<string, number[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      const status = scripts.get(request.url ?? "")?.shift() ?? 200;
      if (status === 302) response.writeHead(302, { location: "http://127.0.0.1:9/elsewhere" });
      else response.writeHead(status);
      response.end();
    });
  });
  let paths = 0;
  return new Promise<{
    /** A new URL of this receiver whose requests are answered with `statuses`, then 200. */
    url: (...statuses: number[]) => string;
    received: Received[];
    close: () => Promise<void>;
  }>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      resolve({
        url(...statuses) {
          const path = `/hook/${++paths}`;
          scripts.set(path, statuses);
          return `http://127.0.0.1:${address.port}${path}`;
        },
        received,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

const RETRY_BASE_MS = 400;
let t: TestApp;
let sender: ReturnType<typeof createWebhookSender>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await testApp();
  t.config.webhooks = { ...t.config.webhooks, retryBaseMs: RETRY_BASE_MS, maxAttempts: 3, timeoutMs: 2_000 };
  sender = createWebhookSender({ db: t.db, config: t.config, logger: pino({ level: "silent" }) });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

type Agent = Awaited<ReturnType<typeof registerAgent>>;

async function hookedAgent(url = receiver.url()): Promise<Agent & { secret: string; url: string }> {
  const agent = await registerAgent(t.app, "hooked");
  const response = await patch(t.app, "/api/agents/me", { webhook_url: url }, agent.key);
  expect(response.status).toBe(200);
  const body = await json(response);
  expect(body.webhook_url).toBe(url);
  expect(body.webhook_secret).toMatch(/^whsec_[0-9a-f]{64}$/);
  return { ...agent, secret: body.webhook_secret, url };
}

async function message(to: Agent, content: string) {
  const from = await registerAgent(t.app, "writer");
  const response = await post(t.app, "/api/messages/send", { to_agent_id: to.id, content }, from.key);
  expect(response.status).toBe(201);
  return (await json(response)).message.id as string;
}

async function deliveries(agent: Agent, query = "") {
  return (await json(await get(t.app, `/api/agents/me/webhook/deliveries${query}`, agent.key))).deliveries;
}

/** Sends what is due until the agent's deliveries settle (none pending) or `rounds` pass. */
async function sendUntilSettled(agent: Agent, rounds = 100) {
  for (let i = 0; i < rounds; i++) {
    await sender.tick();
    const open = (await deliveries(agent)).filter((d: { status: string }) => d.status === "pending");
    if (open.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Checks an X-Signature header: t= is now (within 5 s), v1= the HMAC of "<t>.<body>" under `secret`. */
function expectSignedBy(header: string | string[] | undefined, body: string, secret: string) {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  expect(match, String(header)).not.toBeNull();
  const [, t, v1] = match as unknown as [string, string, string];
  expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(5);
  expect(v1).toBe(createHmac("sha256", secret).update(`${t}.${body}`).digest("hex"));
}

function receivedFor(notificationId: string) {
  return receiver.received.filter((r) => r.headers["x-notification-id"] === notificationId);
}

describe("webhooks", () => {
  it("the secret is shown once: a later PATCH of the URL does not show or change it", async () => {
    const agent = await hookedAgent();
    const next = receiver.url();
    const again = await json(await patch(t.app, "/api/agents/me", { webhook_url: next }, agent.key));
    expect(again.webhook_secret).toBeUndefined();
    expect(again.webhook_url).toBe(next);
    expect(JSON.stringify(await json(await get(t.app, "/api/agents/me", agent.key)))).not.toContain(agent.secret);
    // Stored sealed, not in the clear.
    const { rows } = await t.db.execute<{ sealed: string }>(
      sql`SELECT webhook_secret_encrypted AS sealed FROM app.agents WHERE id = ${agent.id}`,
    );
    expect(rows[0]?.sealed).toMatch(/^v1:/);
    expect(rows[0]?.sealed).not.toContain(agent.secret.slice(6));
  });

  it("a notification is POSTed once, signed with the agent's secret", async () => {
    const agent = await hookedAgent();
    await message(agent, "hello webhook");
    await sendUntilSettled(agent);
    const [notification] = (await json(await get(t.app, "/api/notifications", agent.key))).notifications;
    const got = receivedFor(notification.id);
    expect(got).toHaveLength(1);
    const [delivery] = got as [Received];
    expectSignedBy(delivery.headers["x-signature"], delivery.body, agent.secret);
    // The SDK's helper accepts it as it came, and refuses it changed or replayed after 5 minutes.
    const header = delivery.headers["x-signature"] as string;
    await expect(verifyWebhook(agent.secret, header, delivery.body)).resolves.toEqual(JSON.parse(delivery.body));
    await expect(verifyWebhook(agent.secret, header, delivery.body.replace("hello", "jello"))).rejects.toThrow(
      WebhookVerificationError,
    );
    const later = { now: Math.floor(Date.now() / 1000) + 301 };
    await expect(verifyWebhook(agent.secret, header, delivery.body, later)).rejects.toThrow(/beyond 300 s/);
    expect(delivery.headers["x-webhook-event"]).toBe("message.received");
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(delivery.body)).toEqual({
      id: notification.id,
      kind: "message.received",
      agent_id: agent.id,
      created_at: notification.created_at,
      payload: notification.payload,
      // As the list shows it, for the live service's clients.
      type: "message.received",
      title: notification.title,
      message: notification.message,
    });
    // Nothing more is due for it: another round sends it nothing.
    await sender.tick();
    expect(receivedFor(notification.id)).toHaveLength(1);
    expect(await deliveries(agent)).toEqual([
      expect.objectContaining({
        notification_id: notification.id,
        kind: "message.received",
        status: "delivered",
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
        delivered_at: expect.any(String),
      }),
    ]);
  });

  it("a failing receiver is retried with backoff until it answers 2xx", async () => {
    const agent = await hookedAgent(receiver.url(500, 503));
    await message(agent, "retry me");
    const before = Date.now();
    expect(await sender.tick()).toBeGreaterThan(0);
    const [first] = await deliveries(agent);
    expect(first).toMatchObject({ status: "pending", attempts: 1, last_status_code: 500, last_error: "HTTP 500" });
    // Due again after its backoff, not at once: a round now sends it nothing.
    const dueIn = Date.parse(first.next_attempt_at) - before;
    expect(dueIn).toBeGreaterThanOrEqual(retryDelayMs(1, RETRY_BASE_MS));
    expect(dueIn).toBeLessThan(retryDelayMs(2, RETRY_BASE_MS));
    await sender.tick();
    if (Date.now() < Date.parse(first.next_attempt_at)) expect(receivedFor(first.notification_id)).toHaveLength(1);
    await sendUntilSettled(agent);
    const [settled] = await deliveries(agent);
    expect(settled).toMatchObject({ status: "delivered", attempts: 3, last_status_code: 200 });
    const attempts = receivedFor(settled.notification_id).map((r) => r.headers["x-delivery-attempt"]);
    expect(attempts).toEqual(["1", "2", "3"]);
  });

  it("after the last attempt it is failed; a redelivery starts over; a redirect is not followed", async () => {
    const agent = await hookedAgent(receiver.url(500, 302, 500));
    await message(agent, "never arrives");
    await sendUntilSettled(agent);
    const [failed] = await deliveries(agent);
    expect(failed).toMatchObject({ status: "failed", attempts: 3, last_status_code: 500 });
    // The 302 counted as a failure, and nothing went to where it pointed.
    expect(receivedFor(failed.notification_id)).toHaveLength(3);
    expect(await deliveries(agent, "?status=failed")).toHaveLength(1);
    expect(await deliveries(agent, "?status=delivered")).toHaveLength(0);

    const redelivered = await post(t.app, `/api/agents/me/webhook/deliveries/${failed.id}/redeliver`, {}, agent.key);
    expect(redelivered.status).toBe(200);
    expect((await json(redelivered)).delivery).toMatchObject({ status: "pending", attempts: 0 });
    await sendUntilSettled(agent);
    expect((await deliveries(agent))[0]).toMatchObject({ status: "delivered", attempts: 1 });
    // A delivered one is left as it is.
    const again = await json(
      await post(t.app, `/api/agents/me/webhook/deliveries/${failed.id}/redeliver`, {}, agent.key),
    );
    expect(again.delivery.status).toBe("delivered");
    const other = await registerAgent(t.app, "other");
    const foreign = await post(t.app, `/api/agents/me/webhook/deliveries/${failed.id}/redeliver`, {}, other.key);
    expect(foreign.status).toBe(403);
    const unknown = await post(
      t.app,
      "/api/agents/me/webhook/deliveries/6f1c2e9a-3b4d-4c5e-8f70-123456789abc/redeliver",
      {},
      agent.key,
    );
    expect(unknown.status).toBe(404);
  });

  it("a rotated secret signs every later delivery; the old one no longer does", async () => {
    const agent = await hookedAgent();
    const rotated = await json(await post(t.app, "/api/agents/me/webhook/rotate-secret", {}, agent.key));
    expect(rotated.webhook_secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(rotated.webhook_secret).not.toBe(agent.secret);
    await message(agent, "signed anew");
    await sendUntilSettled(agent);
    const [delivery] = await deliveries(agent);
    const [got] = receivedFor(delivery.notification_id) as [Received];
    expectSignedBy(got.headers["x-signature"], got.body, rotated.webhook_secret);
    await expect(verifyWebhook(agent.secret, got.headers["x-signature"], got.body)).rejects.toThrow(/does not match/);
  });

  it("a removed webhook_url ends pending deliveries; an agent without one gets none", async () => {
    const agent = await hookedAgent(receiver.url(500));
    await message(agent, "then removed");
    await sender.tick();
    expect((await deliveries(agent))[0]).toMatchObject({ status: "pending", attempts: 1 });
    await patch(t.app, "/api/agents/me", { webhook_url: null }, agent.key);
    await sendUntilSettled(agent);
    expect((await deliveries(agent))[0]).toMatchObject({
      status: "failed",
      last_error: "the agent removed its webhook_url",
    });
    await message(agent, "no webhook now");
    expect(await deliveries(agent)).toHaveLength(1);
  });

  it("outside local development, loopback, private and unresolvable hosts are refused and nothing changes", async () => {
    const strict = await testApp({
      webhooks: {
        retryBaseMs: 1_000,
        maxAttempts: 3,
        timeoutMs: 1_000,
        allowPrivateAddresses: false,
        pauseAfterFailures: 10,
        concurrency: 8,
      },
    });
    try {
      const agent = await registerAgent(strict.app, "careful");
      for (const url of [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://[::1]/hook",
        "http://10.1.2.3/hook",
        "http://192.168.1.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::ffff:127.0.0.1]/hook",
        "http://[fd00::1]/hook",
        "http://no-such-host.invalid/hook",
        "http://user:pass@93.184.216.34/hook",
        "ftp://93.184.216.34/hook",
      ]) {
        const response = await patch(strict.app, "/api/agents/me", { webhook_url: url }, agent.key);
        expect(response.status, url).toBe(400);
        expect(await json(response)).toMatchObject({ code: expect.any(String), error: expect.any(String) });
      }
      const me = await json(await get(strict.app, "/api/agents/me", agent.key));
      expect(me.webhook_url).toBeNull();
      const allowed = await json(
        await patch(strict.app, "/api/agents/me", { webhook_url: "https://93.184.216.34/hook" }, agent.key),
      );
      expect(allowed, JSON.stringify(allowed)).toMatchObject({ webhook_url: "https://93.184.216.34/hook" });
      expect(allowed.webhook_secret).toMatch(/^whsec_/);
    } finally {
      await strict.close();
    }
  });
});
