import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectionFrom,
  json,
  newWallet,
  post,
  registerAgent,
  sessionOf,
  type TestApp,
  testApp,
} from "../../test/harness.ts";
import { hashApiKey } from "../auth/api-keys.ts";

/*
 * The request budgets as an outsider meets them, on the budgets API processes share (Postgres):
 * forged keys open no budget of their own, bursts never pass the limit, one agent has one budget
 * whoever acts for it, across processes too, and /mcp spends the same budgets.
 */

const IP_LIMIT = 5;
/** An API process whose clients have a budget of 5 requests a minute without a key. */
let t: TestApp;
/** Two API processes on the same database with the usual wide IP budgets, each its own pool and share. */
let wide: TestApp;
let other: TestApp;
beforeAll(async () => {
  t = await testApp({ rateLimitPerIpPerMinute: IP_LIMIT }, { rateLimits: "shared" });
  wide = await testApp({}, { rateLimits: "shared" });
  other = await testApp({}, { rateLimits: "shared" });
});
afterAll(async () => {
  await Promise.all([other.close(), wide.close()]);
  await t.close();
});

/** A client of its own: an IP address no other test spends from. */
function newClient() {
  const bytes = randomBytes(2);
  return connectionFrom(`10.${bytes[0]}.${bytes[1]}.${1 + Math.floor(Math.random() * 250)}`);
}

function request(app: TestApp["app"], path: string, client: object, headers: Record<string, string> = {}) {
  return app.request(path, { headers }, client);
}

function statuses(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

async function windowRows(pattern: string): Promise<number> {
  const { rows } = await t.db.$client.query<{ n: number }>(
    "SELECT count(*)::integer AS n FROM app.rate_limit_windows WHERE key LIKE $1",
    [pattern],
  );
  return rows[0]?.n ?? 0;
}

describe("forged and revoked credentials", () => {
  it("a key nobody holds is 401, spends the caller's IP budget and leaves no row", async () => {
    const client = newClient();
    const forged = Array.from({ length: IP_LIMIT }, () => randomBytes(32).toString("hex"));
    for (const key of forged) {
      const response = await request(t.app, "/api/listings", client, { authorization: `Bearer ${key}` });
      expect(response.status).toBe(401);
      expect(await json(response)).toMatchObject({ code: "unauthorized" });
    }
    // The IP's budget is spent: neither another forged key nor no key at all gets through.
    const next = await request(t.app, "/api/listings", client, {
      authorization: `Bearer ${randomBytes(32).toString("hex")}`,
    });
    expect(next.status).toBe(429);
    expect((await request(t.app, "/api/listings", client)).status).toBe(429);
    for (const key of forged) expect(await windowRows(`%${hashApiKey(key)}%`)).toBe(0);
    expect(await windowRows("requests:key:%")).toBe(0);
  });

  it("a forged session token is 401 and spends the caller's IP budget", async () => {
    const client = newClient();
    for (let i = 0; i < IP_LIMIT; i++) {
      const token = `sess_${randomBytes(32).toString("hex")}`;
      expect((await request(t.app, "/api/agents/me", client, { authorization: `Bearer ${token}` })).status).toBe(401);
    }
    expect((await request(t.app, "/api/listings", client)).status).toBe(429);
  });

  it("a revoked key is 401 on every route and spends the caller's IP budget, not its agent's", async () => {
    // Registered and rotated through another process: this one never saw the key live.
    const agent = await registerAgent(wide.app);
    const rotated = await post(wide.app, "/api/agents/me/rotate-key", {}, agent.key);
    expect(rotated.status).toBe(200);
    const { api_key } = await json(rotated);
    const client = newClient();
    for (let i = 0; i < IP_LIMIT; i++) {
      expect((await request(t.app, "/api/listings", client, { authorization: `Bearer ${agent.key}` })).status).toBe(
        401,
      );
    }
    expect((await request(t.app, "/api/listings", client, { authorization: `Bearer ${agent.key}` })).status).toBe(429);
    // The agent's own budget is untouched by them: the live key finds the rotation's request only
    // (asked of the process that leased it: another counts that lease as spent).
    const live = await request(wide.app, "/api/agents/me", client, { authorization: `Bearer ${api_key}` });
    expect(live.status).toBe(200);
    expect(Number(live.headers.get("ratelimit-remaining"))).toBe(98);
  });
});

describe("bursts", () => {
  it("150 concurrent requests on one key admit exactly the budget of 100", async () => {
    const agent = await registerAgent(wide.app);
    const client = newClient();
    const responses = await Promise.all(
      Array.from({ length: 150 }, () =>
        request(wide.app, "/api/agents/me", client, { authorization: `Bearer ${agent.key}` }),
      ),
    );
    expect(statuses(responses)).toEqual({ 200: 100, 429: 50 });
  });

  it("three owner sessions acting for one agent share its one budget", async () => {
    const wallet = newWallet();
    const registered = await post(wide.app, "/api/agents/register", {
      agent_name: "one budget",
      wallet_address: wallet.address,
    });
    expect(registered.status).toBe(201);
    const { agent } = await json(registered);
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push(await sessionOf(wide.app, wallet, wide.config.chainId));
    const client = newClient();
    const responses = await Promise.all(
      sessions.flatMap((session) =>
        Array.from({ length: 50 }, () =>
          request(wide.app, "/api/agents/me", client, { authorization: `Bearer ${session}`, "x-agent-id": agent.id }),
        ),
      ),
    );
    // Registration spent nothing of the agent's budget: 100 of the 150 pass.
    expect(statuses(responses)).toEqual({ 200: 100, 429: 50 });
  });

  it("two API processes' concurrent bursts on one key admit no more than the budget together", async () => {
    const agent = await registerAgent(wide.app);
    const client = newClient();
    const burst = (app: TestApp["app"]) =>
      Array.from({ length: 100 }, () =>
        request(app, "/api/agents/me", client, { authorization: `Bearer ${agent.key}` }),
      );
    const responses = await Promise.all([...burst(wide.app), ...burst(other.app)]);
    expect(statuses(responses)).toEqual({ 200: 100, 429: 100 });
  });
});

describe("/mcp", () => {
  const toolsList = (client: object, key?: string) =>
    t.app.request(
      "/mcp",
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(key && { authorization: `Bearer ${key}` }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      },
      client,
    );

  it("anonymous calls beyond the IP budget are 429", async () => {
    const client = newClient();
    const responses = [];
    for (let i = 0; i < IP_LIMIT + 2; i++) responses.push(await toolsList(client));
    expect(responses.map((r) => r.status)).toEqual([...Array(IP_LIMIT).fill(200), 429, 429]);
    expect(await json(responses[IP_LIMIT] as Response)).toMatchObject({ code: "rate_limited" });
  });

  it("a keyed call spends its agent's budget once, tools' calls in process included", async () => {
    const agent = await registerAgent(wide.app);
    const client = newClient();
    const call = await t.app.request(
      "/mcp",
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${agent.key}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "get_profile", arguments: {} },
        }),
      },
      client,
    );
    expect(call.status).toBe(200);
    expect(call.headers.get("ratelimit-remaining")).toBe("99");
    const after = await request(t.app, "/api/agents/me", client, { authorization: `Bearer ${agent.key}` });
    expect(after.headers.get("ratelimit-remaining")).toBe("98");
    // A forged key is refused at the door like anywhere else.
    expect((await toolsList(newClient(), randomBytes(32).toString("hex"))).status).toBe(401);
  });
});
