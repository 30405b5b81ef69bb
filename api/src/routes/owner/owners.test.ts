import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getAddress, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  del,
  get,
  json,
  newWallet,
  post,
  registerAgent,
  registerHosted,
  sessionOf,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";
import { agents, apiKeys } from "../../db/schema.ts";

/*
 * The owners of agents on the suite's real chain and database: a person signs in with Ethereum,
 * registers a hosted agent, recovers it after losing its key, acts as it and withdraws its USDC
 * to the person's own wallet (balances read on chain); keys by prefix, revoked at once, never
 * stored; adoption of an unowned hosted agent; every refusal changes nothing.
 */

/**
 * Hardhat's dev accounts. The owner only signs (a sign-in) and receives USDC: it never sends. #15
 * holds no test USDC and no other test reads its balance (agents.happy reads #3's).
 */
const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";
const OWNER_ACCOUNT = 15;

let t: TestApp;
let chainId: number;
beforeAll(async () => {
  t = await testApp();
  chainId = t.config.chainId;
});
afterAll(() => t.close());

const UNKNOWN_ID = "6f1c2e9a-3b4d-4c5e-8f70-123456789abc";

/** A request with a session acting as `agentId` (X-Agent-Id), or with no such header. */
function asOwner(session: string, agentId: string | undefined, path: string, init: RequestInit = {}) {
  return t.app.request(path, {
    ...init,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${session}`,
      ...(agentId && { "X-Agent-Id": agentId }),
    },
  });
}

/** A person signed in with a fresh wallet. */
async function newOwner() {
  const wallet = newWallet();
  return { wallet, session: await sessionOf(t.app, wallet, chainId) };
}

/** A hosted agent registered by `session` (201 or throws). */
async function ownedHosted(session: string, name = "owned") {
  const response = await post(t.app, "/api/owner/agents", { name, bio: "run from a dashboard" }, session);
  if (response.status !== 201) throw new Error(`POST /api/owner/agents answered ${response.status}`);
  const body = await json(response);
  return { id: body.agent.id as string, key: body.api_key as string, wallet: body.agent.wallet_address };
}

const faucet = (address: string, usdcWei: bigint) =>
  post(t.app, "/api/dev/faucet", { address, usdc_wei: usdcWei.toString() });

const keysOf = async (session: string, agentId: string) =>
  (await json(await get(t.app, `/api/owner/agents/${agentId}/keys`, session))).keys;

/** Every row of an agent's keys, as text: to check that a refused request changed none. */
const keyRows = async (agentId: string) =>
  JSON.stringify(await t.db.select().from(apiKeys).where(eq(apiKeys.agentId, agentId)).orderBy(apiKeys.id));

describe("an owner runs a hosted agent from a session", () => {
  it("registers it, loses its key, issues a new one and withdraws the agent's USDC to the owner's wallet", async () => {
    const devKey = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: OWNER_ACCOUNT }).getHdKey().privateKey;
    const owner = privateKeyToAccount(toHex(devKey as Uint8Array));
    const session = await sessionOf(t.app, owner, chainId);

    const created = await post(t.app, "/api/owner/agents", { name: "dashboard agent", bio: "hosted" }, session);
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body).toMatchObject({
      success: true,
      agent: { name: "dashboard agent", hosted: true },
      api_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      warning: expect.any(String),
    });
    const agentId: string = body.agent.id;
    const wallet = getAddress(body.agent.wallet_address);
    const [row] = await t.db.select().from(agents).where(eq(agents.id, agentId));
    expect(row?.ownerAddress).toBe(owner.address.toLowerCase());
    const lostKey: string = body.api_key;
    expect((await faucet(wallet, 5n * USDC)).status).toBe(200);
    expect((await get(t.app, "/api/agents/me", lostKey)).status).toBe(200);

    // The key is lost: a new one, and every other revoked with it.
    const issued = await post(t.app, `/api/owner/agents/${agentId}/keys`, { revoke_others: true }, session);
    expect(issued.status).toBe(201);
    const newKey = await json(issued);
    expect(newKey).toMatchObject({
      key_id: expect.any(String),
      api_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      revoked: 1,
      created_at: expect.any(String),
    });
    expect(newKey.prefix).toBe(newKey.api_key.slice(0, 8));
    expect((await get(t.app, "/api/agents/me", lostKey)).status).toBe(401);
    const me = await get(t.app, "/api/agents/me", newKey.api_key);
    expect(me.status).toBe(200);
    expect((await json(me)).id).toBe(agentId);

    // The whole balance to the owner's own wallet, with the session acting as the agent.
    const ownerBefore = await usdcBalance(owner.address);
    const withdrawn = await asOwner(session, agentId, "/api/wallet/withdraw", {
      method: "POST",
      body: JSON.stringify({ destination_address: owner.address, amount_wei: (5n * USDC).toString() }),
    });
    expect(withdrawn.status).toBe(200);
    const withdrawal = await json(withdrawn);
    expect(withdrawal).toMatchObject({ state: "CONFIRMED", destination_address: owner.address });
    expect(await usdcBalance(wallet)).toBe(0n);
    expect(await usdcBalance(owner.address)).toBe(ownerBefore + 5n * USDC);

    // Logged in the agent's notifications, by the owner.
    const { notifications } = await json(await get(t.app, "/api/notifications", newKey.api_key));
    expect(notifications.filter((n: { kind: string }) => n.kind === "wallet.withdrawal")).toEqual([
      expect.objectContaining({
        payload: {
          withdrawal_id: withdrawal.withdrawal_id,
          destination_address: owner.address,
          amount_wei: "5000000",
          amount_usdc: "5.00",
          tx_hash: withdrawal.tx_hash,
          by: "owner",
          owner_address: owner.address,
        },
      }),
    ]);

    // The dashboard's list: balances from the chain, one live key, the unread log.
    const listed = await get(t.app, "/api/owner/agents", session);
    expect(listed.status).toBe(200);
    const mine = (await json(listed)).agents.find((agent: { id: string }) => agent.id === agentId);
    expect(mine).toMatchObject({
      id: agentId,
      name: "dashboard agent",
      wallet_address: wallet,
      reputation_tier: "NEWCOMER",
      hosted: true,
      is_paused: false,
      usdc_wei: "0",
      usdc_formatted: "0.00",
      eth_wei: "0",
      live_keys: 1,
      unread_notifications: 1,
    });
  });

  it("the owner's list reads balances and counts per agent, external agents of its wallet included", async () => {
    const { wallet, session } = await newOwner();
    const external = await post(t.app, "/api/agents/register", { agent_name: "mine", wallet_address: wallet.address });
    expect(external.status).toBe(201);
    const hosted = await ownedHosted(session, "second");
    expect((await faucet(hosted.wallet, 3n * USDC)).status).toBe(200);
    expect((await post(t.app, `/api/owner/agents/${hosted.id}/keys`, {}, session)).status).toBe(201);
    await registerHosted(t.app, "somebody else's");

    const { agents: listed } = await json(await get(t.app, "/api/owner/agents", session));
    expect(listed.map((agent: { name: string }) => agent.name)).toEqual(["mine", "second"]);
    expect(listed[0]).toMatchObject({ hosted: false, usdc_wei: "0", live_keys: 1, unread_notifications: 0 });
    expect(listed[1]).toMatchObject({ hosted: true, usdc_wei: "3000000", usdc_formatted: "3.00", live_keys: 2 });
    // A person who owns nothing has an empty dashboard.
    expect(await json(await get(t.app, "/api/owner/agents", (await newOwner()).session))).toEqual({ agents: [] });
  });

  it("an agent's own withdrawal is logged too, as the agent's", async () => {
    const agent = await registerHosted(t.app, "self", 2n * USDC);
    const destination = newWallet().address;
    const response = await post(
      t.app,
      "/api/wallet/withdraw",
      { destination_address: destination, amount_wei: "1500000" },
      agent.key,
    );
    expect(response.status).toBe(200);
    const { notifications } = await json(await get(t.app, "/api/notifications", agent.key));
    expect(notifications).toEqual([
      expect.objectContaining({
        kind: "wallet.withdrawal",
        payload: expect.objectContaining({ by: "agent", amount_usdc: "1.50", destination_address: destination }),
      }),
    ]);
    expect(notifications[0].payload).not.toHaveProperty("owner_address");
  });
});

describe("a session acts as the agents it owns (X-Agent-Id)", () => {
  it("reads, writes and lists as an owned agent; 403 for another's, 400 without the header, 401 after logout", async () => {
    const { session } = await newOwner();
    const mine = await ownedHosted(session, "acted for");
    const stranger = await registerHosted(t.app, "not mine");

    const calls = (agentId: string | undefined) =>
      [
        asOwner(session, agentId, "/api/agents/me"),
        asOwner(session, agentId, "/api/listings", {
          method: "POST",
          body: JSON.stringify({
            agent_id: agentId ?? mine.id,
            title: "Made from a dashboard",
            description: "Listed by the owner",
            price_wei: "1000000",
          }),
        }),
        asOwner(session, agentId, "/api/notifications"),
      ] as const;
    const [me, listing, notifications] = await Promise.all(calls(mine.id));
    expect(me.status).toBe(200);
    expect((await json(me)).id).toBe(mine.id);
    expect(listing.status).toBe(201);
    expect((await json(listing)).agents.id).toBe(mine.id);
    expect(notifications.status).toBe(200);

    const listingsBefore = (await json(await get(t.app, `/api/agents/${stranger.id}`))).listings;
    for (const response of await Promise.all(calls(stranger.id))) expect(response.status).toBe(403);
    for (const response of await Promise.all(calls(undefined))) expect(response.status).toBe(400);
    expect((await json(await get(t.app, `/api/agents/${stranger.id}`))).listings).toEqual(listingsBefore);

    expect((await post(t.app, "/api/auth/logout", {}, session)).status).toBe(200);
    for (const response of await Promise.all(calls(mine.id))) expect(response.status).toBe(401);
    expect((await get(t.app, "/api/owner/agents", session)).status).toBe(401);
  });
});

describe("an owned agent's keys", () => {
  it("are listed by prefix, newest first, with their last use; revoked at once; never stored", async () => {
    const { session } = await newOwner();
    const agent = await ownedHosted(session, "keyed");
    const first = agent.key;
    const second = (await json(await post(t.app, `/api/owner/agents/${agent.id}/keys`, {}, session))).api_key;

    let keys = await keysOf(session, agent.id);
    expect(keys.map((key: { prefix: string }) => key.prefix)).toEqual([second.slice(0, 8), first.slice(0, 8)]);
    expect(keys.every((key: { revoked_at: null; last_used_at: null }) => !key.revoked_at && !key.last_used_at)).toBe(
      true,
    );

    // A use is noted (the guard writes it without making the request wait).
    expect((await get(t.app, "/api/agents/me", first)).status).toBe(200);
    for (let i = 0; i < 50 && !keys[1].last_used_at; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      keys = await keysOf(session, agent.id);
    }
    expect(keys[1].last_used_at).toEqual(expect.any(String));
    expect(keys[0].last_used_at).toBeNull();

    // Revoked: that key stops at once, the other still works; revoking it again changes nothing.
    const revoked = await del(t.app, `/api/owner/agents/${agent.id}/keys/${keys[1].id}`, session);
    expect(revoked.status).toBe(200);
    const answer = await json(revoked);
    expect(answer).toMatchObject({ id: keys[1].id, prefix: first.slice(0, 8), revoked_at: expect.any(String) });
    expect((await get(t.app, "/api/agents/me", first)).status).toBe(401);
    expect((await get(t.app, "/api/agents/me", second)).status).toBe(200);
    const again = await del(t.app, `/api/owner/agents/${agent.id}/keys/${keys[1].id}`, session);
    expect(again.status).toBe(200);
    expect((await json(again)).revoked_at).toBe(answer.revoked_at);
    const listed = await keysOf(session, agent.id);
    expect(listed[1].revoked_at).toBe(answer.revoked_at);
    expect(listed[0].revoked_at).toBeNull();

    // Only the keys' hashes are stored: neither key is in any row of any table of the API.
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, keys[0].id));
    expect(row?.keyHash).toBe(createHash("sha256").update(second).digest("hex"));
    const { rows: tables } = await t.db.execute<{ name: string }>(
      sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'app' AND table_type = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThan(5);
    for (const { name } of tables) {
      const { rows } = await t.db.execute<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM ${sql.identifier("app")}.${sql.identifier(name)} t
            WHERE t::text LIKE ${`%${first}%`} OR t::text LIKE ${`%${second}%`}`,
      );
      expect(rows[0]?.n, name).toBe(0);
    }
  });

  it("are the owner's only: another's agent is 403, an unknown one 404, another agent's key 404", async () => {
    const { session } = await newOwner();
    const mine = await ownedHosted(session, "mine");
    const other = await newOwner();
    const theirs = await ownedHosted(other.session, "theirs");
    const theirKeyId = (await keysOf(other.session, theirs.id))[0].id;
    const before = await keyRows(theirs.id);

    expect((await get(t.app, `/api/owner/agents/${theirs.id}/keys`, session)).status).toBe(403);
    expect((await post(t.app, `/api/owner/agents/${theirs.id}/keys`, { revoke_others: true }, session)).status).toBe(
      403,
    );
    expect((await del(t.app, `/api/owner/agents/${theirs.id}/keys/${theirKeyId}`, session)).status).toBe(403);
    // Through the owner's own agent's path, another agent's key is no key of it.
    expect((await del(t.app, `/api/owner/agents/${mine.id}/keys/${theirKeyId}`, session)).status).toBe(404);
    expect((await del(t.app, `/api/owner/agents/${mine.id}/keys/${UNKNOWN_ID}`, session)).status).toBe(404);
    expect((await get(t.app, `/api/owner/agents/${UNKNOWN_ID}/keys`, session)).status).toBe(404);
    // An unowned hosted agent is nobody's: 403 too.
    const unowned = await registerHosted(t.app, "unowned");
    expect((await get(t.app, `/api/owner/agents/${unowned.id}/keys`, session)).status).toBe(403);
    expect(await keyRows(theirs.id)).toBe(before);
    expect((await get(t.app, "/api/agents/me", theirs.key)).status).toBe(200);
  });

  it("/api/owner takes a session only: an agent's or the arbiter's key is 403, none or a key nobody holds 401", async () => {
    const { session } = await newOwner();
    const agent = await ownedHosted(session, "keyed");
    const before = await keyRows(agent.id);
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/owner/agents"],
      ["POST", "/api/owner/agents", { name: "by a key" }],
      ["GET", `/api/owner/agents/${agent.id}/keys`],
      ["POST", `/api/owner/agents/${agent.id}/keys`, { revoke_others: true }],
      ["DELETE", `/api/owner/agents/${agent.id}/keys/${UNKNOWN_ID}`],
    ];
    const credentials: [string | undefined, number][] = [
      [agent.key, 403],
      [ARBITER_API_KEY, 403],
      [undefined, 401],
      ["f".repeat(64), 401],
      [`sess_${"0".repeat(64)}`, 401],
    ];
    const ownedBefore = await t.db.select({ n: sql<number>`count(*)::int` }).from(agents);
    for (const [method, path, body] of routes) {
      for (const [key, status] of credentials) {
        const response = await t.app.request(path, {
          method,
          headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        expect(response.status, `${method} ${path} with ${key?.slice(0, 8)}`).toBe(status);
        expect(await json(response)).toMatchObject({ error: expect.any(String) });
      }
    }
    expect(await keyRows(agent.id)).toBe(before);
    expect(await t.db.select({ n: sql<number>`count(*)::int` }).from(agents)).toEqual(ownedBefore);
  });

  it("a hosted agent may still rotate its own key with that key", async () => {
    const agent = await registerHosted(t.app, "rotates");
    const rotated = await post(t.app, "/api/agents/me/rotate-key", {}, agent.key);
    expect(rotated.status).toBe(200);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(401);
    expect((await get(t.app, "/api/agents/me", (await json(rotated)).api_key)).status).toBe(200);
  });
});

describe("adoption of a hosted agent registered without an owner", () => {
  it("names its owner once; the owner's session then sees it and acts for it", async () => {
    const agent = await registerHosted(t.app, "orphan");
    const adopter = await newOwner();
    expect((await asOwner(adopter.session, agent.id, "/api/agents/me")).status).toBe(403);

    const lowercase = adopter.wallet.address.toLowerCase();
    const adopted = await post(t.app, "/api/agents/me/owner", { owner_address: lowercase, extra: true }, agent.key);
    expect(adopted.status).toBe(200);
    expect(await json(adopted)).toEqual({ agent_id: agent.id, owner_address: adopter.wallet.address });
    const [row] = await t.db.select().from(agents).where(eq(agents.id, agent.id));
    expect(row?.ownerAddress).toBe(adopter.wallet.address.toLowerCase());

    const again = await post(t.app, "/api/agents/me/owner", { owner_address: newWallet().address }, agent.key);
    expect(again.status).toBe(409);
    const [unchanged] = await t.db.select().from(agents).where(eq(agents.id, agent.id));
    expect(unchanged?.ownerAddress).toBe(adopter.wallet.address.toLowerCase());

    const { agents: listed } = await json(await get(t.app, "/api/owner/agents", adopter.session));
    expect(listed.map((a: { id: string }) => a.id)).toEqual([agent.id]);
    expect((await asOwner(adopter.session, agent.id, "/api/agents/me")).status).toBe(200);
  });

  it("refuses an external agent, the agent's own wallet, an owned agent and bad input, changing nothing", async () => {
    const external = await registerAgent(t.app, "external");
    const adopt = (body: unknown, key: string) => post(t.app, "/api/agents/me/owner", body, key);
    expect((await adopt({ owner_address: newWallet().address }, external.key)).status).toBe(400);

    const orphan = await registerHosted(t.app, "orphan");
    const refusals: [unknown, number][] = [
      [{ owner_address: orphan.wallet }, 400],
      [{}, 400],
      [{ owner_address: "0x12" }, 400],
      [{ owner_address: 5 }, 400],
      [{ owner_address: `0x${"g".repeat(40)}` }, 400],
      [{ owner_address: null }, 400],
    ];
    for (const [body, status] of refusals) {
      expect((await adopt(body, orphan.key)).status, JSON.stringify(body)).toBe(status);
    }
    const malformed = await t.app.request("/api/agents/me/owner", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${orphan.key}` },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect((await adopt({ owner_address: newWallet().address }, "0".repeat(64))).status).toBe(401);
    const ownedByOwner = await ownedHosted((await newOwner()).session, "owned");
    expect((await adopt({ owner_address: newWallet().address }, ownedByOwner.key)).status).toBe(409);
    const rows = await t.db.select().from(agents).where(eq(agents.id, orphan.id));
    expect(rows[0]?.ownerAddress).toBeNull();
    expect((await adopt({ owner_address: newWallet().address }, orphan.key)).status).toBe(200);
  });
});

describe("bad input on the owners' routes", () => {
  it("POST /api/owner/agents: 400 for wrong types, sizes, a wallet or another owner; unknown fields ignored", async () => {
    const { wallet, session } = await newOwner();
    const count = async () => (await json(await get(t.app, "/api/owner/agents", session))).agents.length;
    const refusals: unknown[] = [
      {},
      { name: 5 },
      { name: "" },
      { name: "x".repeat(101) },
      { name: "x", bio: "b".repeat(2_001) },
      { name: "x", skills: "writing" },
      { name: "x", skills: Array.from({ length: 31 }, (_, i) => `s${i}`) },
      { name: "x", hosted: false },
      { name: "x", hosted: "yes" },
      { name: "x", wallet_address: newWallet().address },
      { name: "x", wallet_address: "0x12" },
      { name: "x", owner_address: newWallet().address },
      { name: "x", owner_address: "nope" },
      [],
      "a string",
      null,
    ];
    for (const body of refusals) {
      const response = await post(t.app, "/api/owner/agents", body, session);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await json(response)).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    const malformed = await t.app.request("/api/owner/agents", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session}` },
      body: "{",
    });
    expect(malformed.status).toBe(400);
    expect(await count()).toBe(0);

    const withExtras = await post(
      t.app,
      "/api/owner/agents",
      { name: "extras", wallet_provider: "x", owner_address: wallet.address.toLowerCase(), hosted: true },
      session,
    );
    expect(withExtras.status).toBe(201);
    expect(await count()).toBe(1);
  });

  it("the keys routes: 404 for ids that are no uuids, 400 for wrong types; unknown fields ignored", async () => {
    const { session } = await newOwner();
    const agent = await ownedHosted(session, "keyed");
    const before = await keyRows(agent.id);
    for (const id of ["nope", "1", "99999999999999999999999999", "-1", `${agent.id}x`]) {
      expect((await get(t.app, `/api/owner/agents/${id}/keys`, session)).status, id).toBe(404);
      expect((await post(t.app, `/api/owner/agents/${id}/keys`, {}, session)).status, id).toBe(404);
      expect((await del(t.app, `/api/owner/agents/${agent.id}/keys/${id}`, session)).status, id).toBe(404);
      expect((await del(t.app, `/api/owner/agents/${id}/keys/${UNKNOWN_ID}`, session)).status, id).toBe(404);
    }
    for (const body of [{ revoke_others: "yes" }, { revoke_others: 1 }, { revoke_others: null }, [], 7]) {
      const response = await post(t.app, `/api/owner/agents/${agent.id}/keys`, body, session);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await json(response)).toMatchObject({ error: expect.any(String) });
    }
    expect(await keyRows(agent.id)).toBe(before);

    const ignored = await post(t.app, `/api/owner/agents/${agent.id}/keys`, { label: "laptop", n: -1 }, session);
    expect(ignored.status).toBe(201);
    expect((await json(ignored)).revoked).toBe(0);
    const bare = await t.app.request(`/api/owner/agents/${agent.id}/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}` },
    });
    expect(bare.status).toBe(201);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(200);
    expect(await keysOf(session, agent.id)).toHaveLength(3);
  });

  it("registrations by owners count against the registrations per IP", async () => {
    const limited = await testApp({ registrationsPerHour: 1 });
    try {
      const wallet = newWallet();
      const session = await sessionOf(limited.app, wallet, chainId);
      expect((await post(limited.app, "/api/owner/agents", { name: "first" }, session)).status).toBe(201);
      const second = await post(limited.app, "/api/owner/agents", { name: "second" }, session);
      expect(second.status).toBe(429);
      expect(second.headers.get("retry-after")).toEqual(expect.any(String));
      // Reading the dashboard is not a registration.
      expect((await get(limited.app, "/api/owner/agents", session)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
