import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, newWallet, patch, post, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

async function agentCount(): Promise<number> {
  const { rows } = await t.db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM app.agents`);
  return Number(rows[0]?.n);
}

/** Expects `response` to be a 400-class JSON error in the one shape, and nothing to have changed. */
async function expectError(response: Response, status: number, countBefore?: number) {
  expect(response.status).toBe(status);
  const body = await json(response);
  expect(body).toMatchObject({ error: expect.any(String), code: expect.any(String), request_id: expect.any(String) });
  expect(response.headers.get("x-request-id")).toBe(body.request_id);
  if (countBefore !== undefined) expect(await agentCount()).toBe(countBefore);
  return body;
}

describe("POST /api/agents/register refuses bad input with 400 and registers nothing", () => {
  const wallet = newWallet().address;
  const cases: [string, unknown][] = [
    ["no body fields", {}],
    ["no name", { wallet_address: wallet }],
    ["hosted: false without a wallet", { agent_name: "x", hosted: false }],
    ["a name of 101 characters", { agent_name: "n".repeat(101), wallet_address: wallet }],
    ["an empty name", { agent_name: "   ", wallet_address: wallet }],
    ["a short wallet", { agent_name: "x", wallet_address: "0x1234" }],
    ["a wallet that is not hex", { agent_name: "x", wallet_address: `0x${"g".repeat(40)}` }],
    ["a wallet of the wrong type", { agent_name: "x", wallet_address: 42 }],
    ["a name of the wrong type", { agent_name: ["x"], wallet_address: wallet }],
    ["skills not a list", { agent_name: "x", wallet_address: wallet, skills: "coding" }],
    ["both a wallet and hosted", { agent_name: "x", wallet_address: wallet, hosted: true }],
    ["hosted of the wrong type", { agent_name: "x", hosted: "yes" }],
  ];
  for (const [name, body] of cases) {
    it(name, async () => {
      const before = await agentCount();
      await expectError(await post(t.app, "/api/agents/register", body), 400, before);
    });
  }

  it("malformed JSON", async () => {
    const before = await agentCount();
    const response = await t.app.request("/api/agents/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"agent_name": "x", ',
    });
    await expectError(response, 400, before);
  });

  it("a JSON array or a bare string", async () => {
    for (const body of ["[]", '"agent"', "null"]) {
      const response = await t.app.request("/api/agents/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      await expectError(response, 400);
    }
  });

  it("a body over the size limit, with 413", async () => {
    const before = await agentCount();
    const response = await post(t.app, "/api/agents/register", {
      agent_name: "x",
      wallet_address: newWallet().address,
      bio: "b".repeat(t.config.bodyLimitBytes),
    });
    await expectError(response, 413, before);
  });
});

describe("POST /api/agents/register refuses a duplicate wallet with 409", () => {
  it("in any letter case", async () => {
    const agent = await registerAgent(t.app);
    const before = await agentCount();
    const body = { agent_name: "again", wallet_address: agent.wallet.address.toLowerCase() };
    const error = await expectError(await post(t.app, "/api/agents/register", body), 409, before);
    expect(error.error).toMatch(/already exists/);
  });
});

describe("PATCH /api/agents/me refuses bad input with 400 and changes nothing", () => {
  const cases: [string, unknown][] = [
    ["is_paused not a boolean", { is_paused: "true" }],
    ["metadata not an object", { metadata: [1, 2] }],
    ["a name of 101 characters", { name: "n".repeat(101) }],
    ["a webhook that is not http(s)", { webhook_url: "ftp://example.com/hook" }],
    ["metadata over 16 KB", { metadata: { blob: "x".repeat(17_000) } }],
  ];
  for (const [name, body] of cases) {
    it(name, async () => {
      const agent = await registerAgent(t.app, "unchanged");
      const before = await json(await get(t.app, "/api/agents/me", agent.key));
      await expectError(await patch(t.app, "/api/agents/me", body, agent.key), 400);
      expect(await json(await get(t.app, "/api/agents/me", agent.key))).toEqual(before);
    });
  }
});

describe("reads refuse bad input", () => {
  it("an agent id that is not a uuid, or unknown, is 404", async () => {
    await expectError(await get(t.app, "/api/agents/not-a-uuid"), 404);
    await expectError(await get(t.app, "/api/agents/00000000-0000-4000-8000-000000000000"), 404);
  });

  it("balance needs a valid address", async () => {
    await expectError(await get(t.app, "/api/agents/balance"), 400);
    await expectError(await get(t.app, "/api/agents/balance?address=0x12"), 400);
    // A key it does not know is ignored; the address is still checked next to it.
    expect((await get(t.app, `/api/agents/balance?address=${newWallet().address}&extra=1`)).status).toBe(200);
    await expectError(await get(t.app, "/api/agents/balance?address=0x12&extra=1"), 400);
  });

  it("the directory refuses a bad limit, sort, cursor, owner or search; ignores an unknown key", async () => {
    for (const query of [
      "limit=0",
      "limit=1.5",
      "limit=abc",
      "sort=oldest",
      "cursor=%%%",
      "cursor=e30",
      "owner=0x12",
      "owner=someone",
      "search=",
      `search=${"s".repeat(101)}`,
      "unknown=1&sort=oldest",
    ]) {
      await expectError(await get(t.app, `/api/agents?${query}`), 400);
    }
    for (const query of ["unknown=1", "limit=101", "page=2&per_page=20"]) {
      expect((await get(t.app, `/api/agents?${query}`)).status, query).toBe(200);
    }
  });

  it("an unknown route is a JSON 404", async () => {
    await expectError(await get(t.app, "/api/nothing-here"), 404);
  });
});

describe("wallet-signature key rotation refuses", () => {
  it("a signature by another wallet, and spends the nonce anyway", async () => {
    const agent = await registerAgent(t.app);
    const challenge = await json(await get(t.app, `/api/agents/key-challenge?address=${agent.wallet.address}`));
    const signature = await newWallet().signMessage({ message: challenge.message });
    const body = { address: agent.wallet.address, nonce: challenge.nonce, signature };
    await expectError(await post(t.app, "/api/agents/rotate-key", body), 401);
    const good = await agent.wallet.signMessage({ message: challenge.message });
    await expectError(await post(t.app, "/api/agents/rotate-key", { ...body, signature: good }), 401);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(200);
  });

  it("a challenge issued for another address", async () => {
    const agent = await registerAgent(t.app);
    const other = newWallet();
    const challenge = await json(await get(t.app, `/api/agents/key-challenge?address=${other.address}`));
    const signature = await agent.wallet.signMessage({ message: challenge.message });
    const body = { address: agent.wallet.address, nonce: challenge.nonce, signature };
    await expectError(await post(t.app, "/api/agents/rotate-key", body), 401);
  });

  it("an unknown nonce or a malformed signature", async () => {
    const agent = await registerAgent(t.app);
    await expectError(
      await post(t.app, "/api/agents/rotate-key", { address: agent.wallet.address, nonce: "nope", signature: "0x00" }),
      401,
    );
    await expectError(
      await post(t.app, "/api/agents/rotate-key", { address: agent.wallet.address, nonce: "n", signature: "zz" }),
      400,
    );
  });
});
