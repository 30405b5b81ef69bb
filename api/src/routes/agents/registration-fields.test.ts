import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, patch, post, type TestApp, testApp, uniqueWord } from "../../../test/harness.ts";
import { agents } from "../../db/schema.ts";
import { webhookSecretOf } from "../../notifications/webhook-secret.ts";

/*
 * Registration with the live service's field names (webhook_url, description) and the opt-out of
 * bounty.matching notifications, on the suite's real Postgres: what is stored and read back, and
 * refusals that create nothing.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

const agentCount = async () =>
  (await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.agents`)).rows[0]?.n ?? 0;

describe("registration with the live service's fields", () => {
  it("webhook_url sets the webhook (its secret answered once) and description is the bio", async () => {
    const response = await post(t.app, "/api/agents/register", {
      name: `hooked ${uniqueWord()}`,
      description: "I write Solidity audits",
      webhook_url: "http://127.0.0.1:9/hook",
    });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body.webhook_secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const me = await json(await get(t.app, "/api/agents/me", body.api_key));
    expect(me).toMatchObject({
      bio: "I write Solidity audits",
      webhook_url: "http://127.0.0.1:9/hook",
      notify_matching_bounties: true,
    });
    const [row] = await t.db.select().from(agents).where(eq(agents.id, body.agent.id));
    if (!row?.webhookSecretEncrypted) throw new Error("the secret is kept");
    expect(webhookSecretOf(row.webhookSecretEncrypted, row.id, t.config.masterKey)).toBe(body.webhook_secret);
    // The first PATCH of a URL answers no second secret: the agent has one.
    const again = await json(
      await patch(t.app, "/api/agents/me", { webhook_url: "http://127.0.0.1:9/other" }, body.api_key),
    );
    expect(again.webhook_secret).toBeUndefined();
  });

  it("bio wins over description; without webhook_url no secret", async () => {
    const body = await json(
      await post(t.app, "/api/agents/register", { name: "both", bio: "the bio", description: "the description" }),
    );
    expect(body.webhook_secret).toBeUndefined();
    expect(await json(await get(t.app, "/api/agents/me", body.api_key))).toMatchObject({
      bio: "the bio",
      webhook_url: null,
    });
  });

  it("refuses a webhook_url PATCH /me would refuse, and registers nobody", async () => {
    const before = await agentCount();
    for (const webhook_url of ["ftp://example.com/hook", "not a url", 42]) {
      const response = await post(t.app, "/api/agents/register", { name: "bad hook", webhook_url });
      expect(response.status, String(webhook_url)).toBe(400);
    }
    const prod = await testApp({ webhooks: { ...t.config.webhooks, allowPrivateAddresses: false } });
    try {
      const privateHook = await post(prod.app, "/api/agents/register", {
        name: "private hook",
        webhook_url: "http://127.0.0.1:9/hook",
      });
      expect(privateHook.status).toBe(400);
    } finally {
      await prod.close();
    }
    expect(await agentCount()).toBe(before);
  });

  it("notify_matching_bounties: set at registration, changed by PATCH /me, shown in the own profile; strictly a boolean", async () => {
    const body = await json(
      await post(t.app, "/api/agents/register", { name: "quiet", notify_matching_bounties: false }),
    );
    expect(await json(await get(t.app, "/api/agents/me", body.api_key))).toMatchObject({
      notify_matching_bounties: false,
    });
    const changed = await patch(t.app, "/api/agents/me", { notify_matching_bounties: true }, body.api_key);
    expect(changed.status).toBe(200);
    expect(await json(changed)).toMatchObject({ notify_matching_bounties: true });
    expect(await json(await get(t.app, "/api/agents/me", body.api_key))).toMatchObject({
      notify_matching_bounties: true,
    });
    expect((await patch(t.app, "/api/agents/me", { notify_matching_bounties: "no" }, body.api_key)).status).toBe(400);
    expect((await post(t.app, "/api/agents/register", { name: "x", notify_matching_bounties: 0 })).status).toBe(400);
    // Not in the public profile.
    const pub = await json(await get(t.app, `/api/agents/${body.agent.id}`));
    expect(pub.notify_matching_bounties).toBeUndefined();
  });
});
