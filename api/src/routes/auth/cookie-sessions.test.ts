import { createMarketplaceClient, MarketplaceError } from "@agent-marketplace/sdk";
import { eq, sql } from "drizzle-orm";
import type { PrivateKeyAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventStreamReader } from "../../../test/event-stream.ts";
import { json, newWallet, post, sessionOf, signIn, type TestApp, testApp } from "../../../test/harness.ts";
import { hashSessionToken } from "../../auth/user-sessions.ts";
import { LOCAL_ARBITER_PRIVATE_KEY } from "../../config.ts";
import { userSessions } from "../../db/schema.ts";

/*
 * Browser sessions on the suite's real stack: login with { cookie: true } puts the session in an
 * HttpOnly, SameSite=Strict cookie (the answer carries only its CSRF token); the cookie then works
 * wherever a session does, every unsafe request it authenticates must carry X-CSRF-Token from this
 * origin (403 csrf_failed, nothing changed, otherwise), an Authorization header always wins, and a
 * cookie of an ended session is nobody. The test app answers on http://localhost.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

interface CookieSession {
  /** The cookie's value: the session token (only the browser would hold it). */
  token: string;
  csrf: string;
  setCookie: string;
  answer: Record<string, unknown>;
}

/** Signs `account` in with { cookie: true } at `base`; the session the cookie holds. */
async function cookieLogin(app: TestApp["app"], account: PrivateKeyAccount, base = "http://localhost") {
  const body = { ...(await signIn(app, account, t.config.chainId)), cookie: true };
  const response = await app.request(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get("set-cookie") ?? "";
  const token = /^am_session=(sess_[0-9a-f]{64});/.exec(setCookie)?.[1];
  if (!token) throw new Error(`no session cookie in ${setCookie}`);
  const answer = await json(response);
  return { token, csrf: answer.csrf_token, setCookie, answer } as CookieSession;
}

/** A request as the browser sends it: the cookie, and whatever headers the page adds. */
function browser(
  session: { token: string },
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return t.app.request(path, {
    method: init.method ?? "GET",
    headers: {
      cookie: `am_session=${session.token}`,
      ...(init.body !== undefined && { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
}

/** The page's own write: the cookie, the CSRF header and this origin. */
const ownPage = (session: CookieSession) => ({ "x-csrf-token": session.csrf, origin: "http://localhost" });

async function ownedAgentCount(address: string): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM app.agents WHERE owner_address = ${address.toLowerCase()}`,
  );
  return rows[0]?.n ?? 0;
}

describe("login with cookie: true", () => {
  it("sets an HttpOnly, SameSite=Strict cookie for the whole site and answers no token, only its CSRF token", async () => {
    const session = await cookieLogin(t.app, newWallet());
    expect(session.setCookie).toMatch(/; HttpOnly/);
    expect(session.setCookie).toMatch(/; SameSite=Strict/);
    expect(session.setCookie).toMatch(/; Path=\//);
    expect(session.setCookie).toMatch(/; Max-Age=86400/);
    expect(session.setCookie, "plain http: not Secure").not.toMatch(/Secure/);
    expect(session.answer.session_token).toBeUndefined();
    expect(JSON.stringify(session.answer)).not.toContain(session.token);
    expect(session.csrf).toMatch(/^[0-9a-f]{64}$/);
  });

  it("sets with it a readable am_signed_in hint (no secret) of the same lifetime; logout clears both", async () => {
    const body = { ...(await signIn(t.app, newWallet(), t.config.chainId)), cookie: true };
    const login = await post(t.app, "/api/auth/login", body);
    const [session, hint, ...more] = login.headers.getSetCookie();
    expect(more).toEqual([]);
    expect(session).toMatch(/^am_session=sess_[0-9a-f]{64}; .*HttpOnly/);
    expect(hint).toBe("am_signed_in=1; Max-Age=86400; Path=/; SameSite=Strict");
    const token = /^am_session=([^;]+)/.exec(session ?? "")?.[1] ?? "";
    const { csrf_token: csrf } = await json(login);
    const out = await t.app.request("/api/auth/logout", {
      method: "POST",
      headers: {
        cookie: `am_session=${token}; am_signed_in=1`,
        origin: "http://localhost",
        "x-csrf-token": csrf,
        "content-type": "application/json",
      },
      body: "{}",
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().map((cookie) => cookie.split(";").slice(0, 2).join(";"))).toEqual([
      "am_session=; Max-Age=0",
      "am_signed_in=; Max-Age=0",
    ]);
  });

  it("marks the cookie Secure when the request came over https", async () => {
    const session = await cookieLogin(t.app, newWallet(), "https://localhost");
    expect(session.setCookie).toMatch(/; Secure/);
  });

  it("without cookie: true answers the Bearer token as before, and sets no cookie", async () => {
    const response = await post(t.app, "/api/auth/login", await signIn(t.app, newWallet(), t.config.chainId));
    expect(response.headers.get("set-cookie")).toBeNull();
    const answer = await json(response);
    expect(answer.session_token).toMatch(/^sess_[0-9a-f]{64}$/);
    expect(answer.csrf_token).toBeUndefined();
  });
});

describe("a cookie session reads wherever a session does", () => {
  it("GET /api/auth/session answers the session and its CSRF token (by Bearer: no CSRF token)", async () => {
    const wallet = newWallet();
    const session = await cookieLogin(t.app, wallet);
    const byCookie = await browser(session, "/api/auth/session");
    expect(byCookie.status).toBe(200);
    const answer = await json(byCookie);
    expect(answer.address).toBe(wallet.address.toLowerCase());
    expect(answer.csrf_token).toBe(session.csrf);
    const byBearer = await t.app.request("/api/auth/session", {
      headers: { authorization: `Bearer ${session.token}` },
    });
    expect((await json(byBearer)).csrf_token).toBeUndefined();
  });

  it("the owner's agents, an agent's own routes with X-Agent-Id, and its notification stream", async () => {
    const wallet = newWallet();
    const session = await cookieLogin(t.app, wallet);
    const created = await browser(session, "/api/owner/agents", {
      method: "POST",
      body: { name: "made in a browser" },
      headers: ownPage(session),
    });
    expect(created.status).toBe(201);
    const agentId = (await json(created)).agent.id as string;

    const owned = await browser(session, "/api/owner/agents");
    expect(owned.status).toBe(200);
    expect((await json(owned)).agents.map((agent: { id: string }) => agent.id)).toEqual([agentId]);

    const me = await browser(session, "/api/agents/me", { headers: { "x-agent-id": agentId } });
    expect(me.status).toBe(200);
    expect((await json(me)).id).toBe(agentId);
    expect((await browser(session, "/api/agents/me")).status, "no X-Agent-Id").toBe(400);

    const stream = await browser(session, "/api/notifications/stream", { headers: { "x-agent-id": agentId } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = eventStreamReader(stream.body as ReadableStream<Uint8Array>);
    try {
      expect((await events.next()).event).toBe("ready");
    } finally {
      await events.close();
    }
  });

  it("the arbiter's desk by the arbiter's session cookie, and not by another person's", async () => {
    const arbiter = await cookieLogin(t.app, privateKeyToAccount(LOCAL_ARBITER_PRIVATE_KEY));
    const queue = await browser(arbiter, "/api/disputes");
    expect(queue.status).toBe(200);
    expect(Array.isArray((await json(queue)).disputes)).toBe(true);
    const someone = await cookieLogin(t.app, newWallet());
    expect((await browser(someone, "/api/disputes")).status).toBe(403);
  });
});

describe("unsafe requests by cookie need the CSRF header from this origin", () => {
  it("refuses a write without the header, with a wrong one, from a foreign origin or a cross-site fetch: 403, nothing created", async () => {
    const wallet = newWallet();
    const session = await cookieLogin(t.app, wallet);
    const attempts: [string, Record<string, string>][] = [
      ["no CSRF header", {}],
      ["no CSRF header, own origin", { origin: "http://localhost" }],
      ["a wrong CSRF token", { "x-csrf-token": "0".repeat(64), origin: "http://localhost" }],
      ["another session's CSRF token", { "x-csrf-token": (await cookieLogin(t.app, newWallet())).csrf }],
      ["a foreign origin", { "x-csrf-token": session.csrf, origin: "https://evil.example" }],
      ["a cross-site fetch", { "x-csrf-token": session.csrf, "sec-fetch-site": "cross-site" }],
    ];
    for (const [label, headers] of attempts) {
      const response = await browser(session, "/api/owner/agents", {
        method: "POST",
        body: { name: "forged" },
        headers,
      });
      expect(response.status, label).toBe(403);
      expect(await json(response), label).toMatchObject({ code: "csrf_failed", error: expect.any(String) });
    }
    expect(await ownedAgentCount(wallet.address)).toBe(0);

    const made = await browser(session, "/api/owner/agents", {
      method: "POST",
      body: { name: "by the page" },
      headers: { "x-csrf-token": session.csrf, "sec-fetch-site": "same-origin" },
    });
    expect(made.status, "the CSRF header without an Origin (some browsers send none)").toBe(201);
    expect(await ownedAgentCount(wallet.address)).toBe(1);
  });

  it("a Bearer session needs no CSRF header, and wins over a cookie sent with it", async () => {
    const bearerWallet = newWallet();
    const bearer = await sessionOf(t.app, bearerWallet, t.config.chainId);
    const cookieWallet = newWallet();
    const cookie = await cookieLogin(t.app, cookieWallet);
    const response = await t.app.request("/api/owner/agents", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${bearer}`,
        cookie: `am_session=${cookie.token}`,
        origin: "https://evil.example",
      },
      body: JSON.stringify({ name: "by a program" }),
    });
    expect(response.status).toBe(201);
    expect(await ownedAgentCount(bearerWallet.address)).toBe(1);
    expect(await ownedAgentCount(cookieWallet.address)).toBe(0);
  });
});

describe("the end of a cookie session", () => {
  it("logout by cookie (with its CSRF header) ends the session and clears the cookie; the cookie then works nowhere", async () => {
    const session = await cookieLogin(t.app, newWallet());
    const refused = await browser(session, "/api/auth/logout", { method: "POST", body: {} });
    expect(refused.status, "logout is a write: CSRF first").toBe(403);
    expect((await browser(session, "/api/owner/agents")).status).toBe(200);

    const out = await browser(session, "/api/auth/logout", { method: "POST", body: {}, headers: ownPage(session) });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^am_session=; Max-Age=0; Path=\//);
    expect((await browser(session, "/api/owner/agents")).status).toBe(401);
    expect((await browser(session, "/api/auth/session")).status).toBe(401);
    // An ended session's cookie is nobody: a write is 401 (not a CSRF refusal), and signing in again works.
    expect((await browser(session, "/api/owner/agents", { method: "POST", body: { name: "late" } })).status).toBe(401);
    await cookieLogin(t.app, newWallet());
  });

  it("an expired session's cookie is 401", async () => {
    const session = await cookieLogin(t.app, newWallet());
    await t.db
      .update(userSessions)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(userSessions.tokenHash, hashSessionToken(session.token)));
    expect((await browser(session, "/api/owner/agents")).status).toBe(401);
    expect((await browser(session, "/api/auth/session")).status).toBe(401);
    const write = await browser(session, "/api/owner/agents", {
      method: "POST",
      body: { name: "x" },
      headers: ownPage(session),
    });
    expect(write.status).toBe(401);
  });
});

describe("the request budget", () => {
  it("counts a cookie session's requests as its Bearer session's: one budget per session", async () => {
    const limited = await testApp({ rateLimitPerMinute: 3 });
    try {
      const wallet = newWallet();
      const session = await cookieLogin(limited.app, wallet);
      const byCookie = () =>
        limited.app.request("/api/auth/session", { headers: { cookie: `am_session=${session.token}` } });
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await byCookie()).status);
      expect(statuses).toEqual([200, 200, 200]);
      const over = await byCookie();
      expect(over.status).toBe(429);
      expect(over.headers.get("retry-after")).not.toBeNull();
      const bearer = await limited.app.request("/api/auth/session", {
        headers: { authorization: `Bearer ${session.token}` },
      });
      expect(bearer.status, "the same session by Bearer shares the budget").toBe(429);
    } finally {
      await limited.close();
    }
  });
});

/**
 * What a browser does for a page on this origin: keeps the cookies the API sets (HttpOnly ones
 * included, out of the page's reach) and sends them back, with the page's Origin.
 */
function browserFetch(app: TestApp["app"]): typeof fetch {
  const jar = new Map<string, string>();
  return async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    if (request.method !== "GET") headers.set("origin", "http://localhost");
    const response = await app.request(request.url, {
      method: request.method,
      headers,
      body: request.method === "GET" ? undefined : await request.text(),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = cookie.split("; ");
      const [name = "", value = ""] = pair.split("=");
      if (attributes.includes("Max-Age=0")) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
}

describe("the SDK in a browser", () => {
  it("signs in by cookie, keeps only the CSRF token, and a reloaded page finds it again with session()", async () => {
    const wallet = newWallet();
    const fetch = browserFetch(t.app);
    const page = createMarketplaceClient({ baseUrl: "http://localhost", fetch, retries: 0 });
    const answer = await page.login({ ...(await signIn(t.app, wallet, t.config.chainId)), cookie: true });
    expect(answer.session_token).toBeUndefined();
    expect(page.apiKey, "no token in the page's memory").toBeUndefined();
    expect(page.csrfToken).toBe(answer.csrf_token);
    await page.createOwnedAgent({ name: "from the page" });

    // The page is reloaded: a new client, the browser's cookie. Its first write is refused until
    // session() hands back the CSRF token.
    const reloaded = createMarketplaceClient({ baseUrl: "http://localhost", fetch, retries: 0 });
    const refused = await reloaded.createOwnedAgent({ name: "too early" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MarketplaceError);
    expect((refused as MarketplaceError).code).toBe("csrf_failed");
    expect((await reloaded.getSession()).csrf_token).toBe(answer.csrf_token);
    expect(reloaded.csrfToken).toBe(answer.csrf_token);
    await reloaded.createOwnedAgent({ name: "after the reload" });
    expect(await ownedAgentCount(wallet.address)).toBe(2);

    await reloaded.logout();
    const after = await reloaded.listOwnedAgents().catch((error: unknown) => error);
    expect((after as MarketplaceError).status).toBe(401);
  });

  it("useCsrfToken sets the header a client sends; a Bearer client is unchanged", async () => {
    const wallet = newWallet();
    const program = createMarketplaceClient({ baseUrl: "http://localhost", fetch: browserFetch(t.app), retries: 0 });
    const answer = await program.login(await signIn(t.app, wallet, t.config.chainId));
    expect(program.apiKey).toBe(answer.session_token);
    expect(program.csrfToken).toBeUndefined();
    await program.createOwnedAgent({ name: "by a program" });
    program.useCsrfToken("0".repeat(64));
    expect(program.csrfToken).toBe("0".repeat(64));
    // Bearer wins: a CSRF header changes nothing for a program.
    await program.createOwnedAgent({ name: "still by a program" });
    expect(await ownedAgentCount(wallet.address)).toBe(2);
  });
});
