import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, patch, post, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";

let t: TestApp;
/** The same app with small limits, so the tests can cross them. */
let limited: TestApp;
beforeAll(async () => {
  t = await testApp();
  limited = await testApp({
    rateLimitPerMinute: 5,
    registrationsPerHour: 3,
    rateLimitPerIpPerMinute: 8,
    trustProxy: true,
  });
});
afterAll(async () => {
  await t.close();
  await limited.close();
});

const BAD_KEY = "f".repeat(64);

describe("routes that need an agent's key answer 401 without a valid one", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/api/agents/me"],
    ["PATCH", "/api/agents/me", { name: "x" }],
    ["POST", "/api/agents/me/rotate-key", {}],
  ];
  for (const [method, path, body] of routes) {
    for (const [label, header] of [
      ["no key", undefined],
      ["a key nobody holds", `Bearer ${BAD_KEY}`],
      ["a malformed key", "Bearer 1234"],
      ["another scheme", `Basic ${BAD_KEY}`],
    ] as const) {
      it(`${method} ${path} with ${label}`, async () => {
        const response = await t.app.request(path, {
          method,
          headers: { "content-type": "application/json", ...(header && { authorization: header }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        expect(response.status).toBe(401);
        expect(await json(response)).toMatchObject({ error: expect.any(String), code: "unauthorized" });
      });
    }
  }

  it("a revoked key stops working at once", async () => {
    const agent = await registerAgent(t.app);
    const rotated = await json(await post(t.app, "/api/agents/me/rotate-key", {}, agent.key));
    expect((await patch(t.app, "/api/agents/me", { name: "hijack" }, agent.key)).status).toBe(401);
    expect((await json(await get(t.app, "/api/agents/me", rotated.api_key))).name).not.toBe("hijack");
  });
});

describe("an agent's key acts only on that agent", () => {
  it("PATCH /api/agents/me changes the caller, never another agent", async () => {
    const alice = await registerAgent(t.app, "alice");
    const bob = await registerAgent(t.app, "bob");
    await patch(t.app, "/api/agents/me", { name: "alice 2" }, alice.key);
    expect((await json(await get(t.app, `/api/agents/${bob.id}`))).name).toBe("bob");
  });

  it("answers never carry another agent's secrets", async () => {
    const hosted = await json(await post(t.app, "/api/agents/register", { name: "custodial", hosted: true }));
    const text = JSON.stringify(await json(await get(t.app, `/api/agents/${hosted.agent.id}`)));
    expect(text).not.toMatch(/encrypted|private|api_key|metadata/);
    const own = JSON.stringify(await json(await get(t.app, "/api/agents/me", hosted.api_key)));
    expect(own).not.toMatch(/encrypted|private_key/);
  });
});

describe("rate limits answer 429 with Retry-After", () => {
  it("past the per-key limit within a minute", async () => {
    const agent = await registerAgent(limited.app);
    for (let i = 0; i < 5; i++) {
      const response = await get(limited.app, "/api/agents/me", agent.key);
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-remaining")).toBe(String(4 - i));
    }
    const refused = await get(limited.app, "/api/agents/me", agent.key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await json(refused)).toMatchObject({ code: "rate_limited" });
    // Another agent's key has its own budget.
    const other = await registerAgent(limited.app);
    expect((await get(limited.app, "/api/agents/me", other.key)).status).toBe(200);
  });

  it("past the registrations per IP in an hour, and other IPs still register", async () => {
    const register = (ip: string) =>
      limited.app.request("/api/agents/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: JSON.stringify({ name: "r", hosted: true }),
      });
    for (let i = 0; i < 3; i++) expect((await register("203.0.113.7")).status).toBe(201);
    const refused = await register("203.0.113.7");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3_000);
    expect((await register("198.51.100.2")).status).toBe(201);
  });

  it("past the per-IP budget of requests without a key", async () => {
    const browse = () => limited.app.request("/api/agents", { headers: { "x-forwarded-for": "192.0.2.55" } });
    for (let i = 0; i < 8; i++) expect((await browse()).status).toBe(200);
    expect((await browse()).status).toBe(429);
  });
});
