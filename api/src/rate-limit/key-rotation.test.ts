import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, post, registerAgent, type TestApp, testApp } from "../../test/harness.ts";

/**
 * The request budget belongs to the agent, not to its key: rotating the key, with the current key
 * or with a wallet signature, carries on with what is left of the minute's budget.
 */
const LIMIT = 6;

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ rateLimitPerMinute: LIMIT });
});
afterAll(() => t.close());

async function spend(key: string, times: number, firstRemaining: number) {
  for (let i = 0; i < times; i++) {
    const response = await get(t.app, "/api/agents/me", key);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-remaining")).toBe(String(firstRemaining - i));
  }
}

describe("rotating the API key does not reset the request budget", () => {
  it("with the current key: the new key continues the agent's count, then 429", async () => {
    const agent = await registerAgent(t.app);
    await spend(agent.key, 3, LIMIT - 1);
    const rotated = await post(t.app, "/api/agents/me/rotate-key", {}, agent.key);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("ratelimit-remaining")).toBe(String(LIMIT - 4));
    const { api_key } = await json(rotated);
    await spend(api_key, 2, LIMIT - 5);
    const refused = await get(t.app, "/api/agents/me", api_key);
    expect(refused.status).toBe(429);
    expect(await json(refused)).toMatchObject({ code: "rate_limited" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Rotating again gives no way out either; the revoked key is nobody's now (401).
    expect((await post(t.app, "/api/agents/me/rotate-key", {}, api_key)).status).toBe(429);
    expect((await get(t.app, "/api/agents/me", agent.key)).status).toBe(401);
    // Another agent's budget is untouched.
    const other = await registerAgent(t.app);
    await spend(other.key, 1, LIMIT - 1);
  });

  it("with a wallet signature: the new key continues the agent's count, then 429", async () => {
    const agent = await registerAgent(t.app);
    await spend(agent.key, 4, LIMIT - 1);
    const challenge = await json(await get(t.app, `/api/agents/key-challenge?address=${agent.wallet.address}`));
    const signature = await agent.wallet.signMessage({ message: challenge.message });
    const rotated = await post(t.app, "/api/agents/rotate-key", {
      address: agent.wallet.address,
      nonce: challenge.nonce,
      signature,
    });
    expect(rotated.status).toBe(200);
    const { api_key } = await json(rotated);
    await spend(api_key, 2, LIMIT - 5);
    expect((await get(t.app, "/api/agents/me", api_key)).status).toBe(429);
  });

  it("a key nobody holds opens no budget and never spends an agent's", async () => {
    const agent = await registerAgent(t.app);
    const unknown = "e".repeat(64);
    for (let i = 0; i < LIMIT + 2; i++) expect((await get(t.app, "/api/agents/me", unknown)).status).toBe(401);
    await spend(agent.key, LIMIT, LIMIT - 1);
  });
});
