import { freePort as closedPort } from "@agent-marketplace/indexer/local-postgres";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  createListing,
  del,
  get,
  json,
  newWallet,
  patch,
  post,
  registerAgent,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { keyChallengeMessage } from "../../domain/agents/agent-keys.ts";
import { PROFILE_LISTINGS } from "../../schemas/agents.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe("POST /api/agents/register", () => {
  it("registers an external agent with its wallet and answers a 64-hex key once", async () => {
    const wallet = newWallet();
    const response = await post(t.app, "/api/agents/register", {
      agent_name: "Researcher",
      wallet_address: wallet.address.toLowerCase(),
      bio: "I read papers",
      skills: ["research"],
    });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({
      success: true,
      agent: { name: "Researcher", wallet_address: wallet.address, hosted: false },
      warning: expect.stringContaining("shown once"),
    });
    expect(body.api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(body.agent.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("the spec's quick start, {name, bio} only, makes a hosted agent that can buy once the faucet funds it", async () => {
    const response = await post(t.app, "/api/agents/register", { name: "Quick start", bio: "I try things" });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({
      success: true,
      agent: { name: "Quick start", hosted: true, wallet_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
      api_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      warning: expect.stringContaining("shown once"),
    });
    const key = body.api_key as string;
    expect(await json(await get(t.app, "/api/agents/me", key))).toMatchObject({ hosted: true, bio: "I try things" });

    // Its wallet is real: funded by the local faucet, it buys a listing and the escrow is FUNDED.
    const seller = await registerAgent(t.app, "quick seller");
    const listing = await createListing(t.app, seller, { price_wei: "1500000" });
    expect((await post(t.app, `/api/listings/${listing.id}/buy`, {}, key)).status).toBe(402);
    const grant = await post(t.app, "/api/dev/faucet", { address: body.agent.wallet_address, usdc_wei: "2000000" });
    expect(grant.status).toBe(200);
    const bought = await post(t.app, `/api/listings/${listing.id}/buy`, {}, key);
    expect(bought.status).toBe(200);
    expect(await json(bought)).toMatchObject({ state: "FUNDED", amount_wei: "1500000" });
    expect(await json(await get(t.app, `/api/wallet/balance?agent_id=${body.agent.id}`))).toMatchObject({
      usdc_wei: "500000",
      usdc_formatted: "0.50",
    });
  });

  it("registers a hosted agent with a custodial wallet, accepting `name` for agent_name", async () => {
    const response = await post(t.app, "/api/agents/register", { name: "Hosted one", hosted: true });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body.agent).toMatchObject({ name: "Hosted one", hosted: true });
    expect(body.agent.wallet_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});

describe("a profile's listings", () => {
  it("are the newest active ones, at most PROFILE_LISTINGS, amounts as strings, the same in /me", async () => {
    const agent = await registerAgent(t.app, "Lister");
    const created: Array<{ id: string; title: string; price_wei: string }> = [];
    for (let i = 0; i < PROFILE_LISTINGS + 3; i++) {
      const price = i === 5 ? "123456789012345678901234567890" : String(1_000_000 + i);
      created.push(await createListing(t.app, agent, { title: `Listing ${i}`, price_wei: price }));
      // Distinct creation times, so that "newest" has one answer.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const i of [PROFILE_LISTINGS + 2, 3]) {
      expect((await del(t.app, `/api/listings/${created[i]?.id}`, agent.key)).status).toBe(200);
    }
    const expected = created
      .filter((_, i) => i !== PROFILE_LISTINGS + 2 && i !== 3)
      .reverse()
      .slice(0, PROFILE_LISTINGS)
      .map((listing) => ({
        id: listing.id,
        title: listing.title,
        listing_type: "FIXED",
        category: "other",
        price_wei: listing.price_wei,
        price_usdc: listing.price_wei === "123456789012345678901234567890" ? "123456789012345678901234.56" : "1.00",
        is_active: true,
      }));
    const profile = await json(await get(t.app, `/api/agents/${agent.id}`));
    expect(profile.listings).toEqual(expected);
    expect((await json(await get(t.app, "/api/agents/me", agent.key))).listings).toEqual(expected);
  });
});

describe("GET/PATCH /api/agents/me", () => {
  it("answers the full own profile and applies changes", async () => {
    const agent = await registerAgent(t.app, "Coder");
    const me = await get(t.app, "/api/agents/me", agent.key);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      id: agent.id,
      name: "Coder",
      wallet_address: agent.wallet.address,
      is_active: true,
      is_paused: false,
      hosted: false,
      transaction_count: 0,
      total_earned_wei: "0",
      total_spent_wei: "0",
      reputation_tier: "NEWCOMER",
      reputation: { completed_transactions: 0, total_volume_wei: "0", success_rate: 0, rated_deals: 0 },
      recent_transactions: [],
      listings: [],
      metadata: {},
    });
    const changed = await patch(
      t.app,
      "/api/agents/me",
      { name: "Coder 2", is_paused: true, metadata: { model: "x" }, skills: ["coding"] },
      agent.key,
    );
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      name: "Coder 2",
      is_paused: true,
      metadata: { model: "x" },
      skills: ["coding"],
    });
  });
});

describe("GET /api/agents/me and GET /api/agents/{id} in one round trip", () => {
  /** The names of the prepared statements `t.db` is sent while `request` runs. */
  async function statementsDuring(request: () => Response | Promise<Response>): Promise<string[]> {
    const pool = t.db.$client as unknown as { query: (...args: unknown[]) => unknown };
    const query = pool.query;
    const names: string[] = [];
    pool.query = (...args: unknown[]) => {
      const first = args[0] as { name?: string; text?: string } | string;
      names.push(typeof first === "string" ? first : (first.name ?? first.text ?? ""));
      return query.apply(pool, args);
    };
    try {
      expect((await request()).status).toBe(200);
    } finally {
      pool.query = query;
    }
    return names;
  }

  it("checks the key and reads the kept profile in one statement; a change builds it again; an inactive agent's key is refused there", async () => {
    const agent = await registerAgent(t.app, "One trip");
    const listing = await createListing(t.app, agent, { title: "Read with the key" });
    // The first request learns whose budget the key counts against and notes the key's use.
    const first = await json(await get(t.app, "/api/agents/me", agent.key));
    expect(first).toMatchObject({ id: agent.id, name: "One trip", listings: [{ id: listing.id }] });
    // Bookkeeping that the answer does not wait for (the key's last use, the budget asking again
    // who holds the key) is not a round trip of it.
    const meStatements = async () =>
      (await statementsDuring(() => get(t.app, "/api/agents/me", agent.key))).filter(
        (name) => name !== "touch_api_key" && name !== "rate_limit_key_holder",
      );
    expect(await meStatements()).toEqual(["kept_own_profile_by_key"]);
    // The same profile the public view shows, with the own fields.
    const { listings, recent_transactions, reputation_tier } = await json(await get(t.app, `/api/agents/${agent.id}`));
    expect(first).toMatchObject({ listings, recent_transactions, reputation_tier, is_active: true });

    // A new listing is a change of the profile: the next read builds it from the tables and keeps it.
    const second = await createListing(t.app, agent, { title: "Listed later" });
    const rebuilt = await meStatements();
    expect(rebuilt.slice(0, 2)).toEqual(["kept_own_profile_by_key", "agent_profile"]);
    expect(rebuilt[2]).toMatch(/^insert into "app"."profile_docs"/);
    expect(rebuilt).toHaveLength(3);
    expect(await meStatements()).toEqual(["kept_own_profile_by_key"]);
    expect(
      (await json(await get(t.app, "/api/agents/me", agent.key))).listings.map((row: { id: string }) => row.id),
    ).toEqual([second.id, listing.id]);

    await t.db.execute(sql`UPDATE app.agents SET is_active = false WHERE id = ${agent.id}`);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(401);
  });

  it("a public profile is one statement that reads only the kept profile and whether it is current", async () => {
    const agent = await registerAgent(t.app, "Public trip");
    const profileStatements = () => statementsDuring(() => get(t.app, `/api/agents/${agent.id}`));
    // The first read builds the profile and keeps it; the next ones read it.
    await profileStatements();
    expect(await profileStatements()).toEqual(["kept_public_agent_profile"]);
    await createListing(t.app, agent, { title: "Shown publicly" });
    const rebuilt = await profileStatements();
    expect(rebuilt.slice(0, 2)).toEqual(["kept_public_agent_profile", "agent_profile"]);
    expect(rebuilt[2]).toMatch(/^insert into "app"."profile_docs"/);
    expect(await profileStatements()).toEqual(["kept_public_agent_profile"]);
    expect((await json(await get(t.app, `/api/agents/${agent.id}`))).listings).toHaveLength(1);
  });
});

describe("GET /api/agents/{id}", () => {
  it("answers the public view without own-only fields", async () => {
    const agent = await registerAgent(t.app, "Public");
    const response = await get(t.app, `/api/agents/${agent.id}`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({ id: agent.id, name: "Public", transaction_count: 0, reputation_tier: "NEWCOMER" });
    expect(body).not.toHaveProperty("total_spent_wei");
    expect(body).not.toHaveProperty("metadata");
  });
});

describe("GET /api/agents/balance", () => {
  it("reads ETH and USDC from the chain", async () => {
    // Hardhat's account #3 holds 10,000 ETH and 10,000 USDC on the local deployment.
    const response = await get(t.app, "/api/agents/balance?address=0x90F79bf6EB2c4f870365E785982E1f101E93b906");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
      eth_wei: expect.stringMatching(/^\d+$/),
      usdc_wei: "10000000000",
      eth_formatted: expect.stringMatching(/^\d+\.\d{2}$/),
      usdc_formatted: "10000.00",
    });
  });
});

describe("key rotation", () => {
  it("with the current key: answers a new key and revokes the old one", async () => {
    const agent = await registerAgent(t.app);
    const response = await post(t.app, "/api/agents/me/rotate-key", {}, agent.key);
    expect(response.status).toBe(200);
    const { api_key } = await json(response);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(401);
    expect((await get(t.app, "/api/agents/me", api_key)).status).toBe(200);
  });

  it("with a wallet signature of a fresh challenge, once", async () => {
    const agent = await registerAgent(t.app);
    const challenge = await json(await get(t.app, `/api/agents/key-challenge?address=${agent.wallet.address}`));
    expect(challenge.message).toBe(keyChallengeMessage(agent.wallet.address, challenge.nonce));
    const signature = await agent.wallet.signMessage({ message: challenge.message });
    const body = { address: agent.wallet.address, nonce: challenge.nonce, signature };
    const response = await post(t.app, "/api/agents/rotate-key", body);
    expect(response.status).toBe(200);
    const { api_key } = await json(response);
    expect((await get(t.app, "/api/agents/me", api_key)).status).toBe(200);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(401);
    // A replay of the same signature is refused.
    expect((await post(t.app, "/api/agents/rotate-key", body)).status).toBe(401);
  });
});

describe("platform", () => {
  it("serves an OpenAPI 3.1 document and a docs page", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toContain("/api/agents/register");
    const docs = await get(t.app, "/docs");
    expect(docs.status).toBe(200);
    // The reference is rendered in the browser from the document it names.
    expect(await docs.text()).toContain('"url": "/api/openapi.json"');
  });

  it("reports database, chain and indexer in /api/health", async () => {
    const response = await get(t.app, "/api/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "ok",
      database: { ok: true },
      chain: { ok: true },
      indexer: { ok: true },
    });
  });

  it("asks the indexer process itself when INDEXER_URL is set: 200 while it answers, 503 once it does not", async () => {
    const watching = await testApp({ indexerUrl: inject("stack").indexerUrl });
    const stopped = await testApp({ indexerUrl: `http://127.0.0.1:${await closedPort()}` });
    try {
      expect((await get(watching.app, "/api/health")).status).toBe(200);
      const response = await get(stopped.app, "/api/health");
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ status: "down", database: { ok: true }, indexer: { ok: false } });
    } finally {
      await watching.close();
      await stopped.close();
    }
  });
});
