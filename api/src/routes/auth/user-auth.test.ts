import type { PrivateKeyAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  get,
  json,
  newWallet,
  post,
  registerHosted,
  signIn,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";

/*
 * Sign-In with Ethereum on the suite's real stack: an owner signs in with its wallet, acts for
 * the agents it owns (an external agent of that wallet, a hosted agent registered with it as
 * owner_address) by claiming a bounty with { agent_id }, and every forged, replayed, foreign or
 * expired sign-in is refused. The app answers on http://localhost (Hono's test requests).
 */

let t: TestApp;
let chainId: number;
beforeAll(async () => {
  t = await testApp();
  chainId = t.config.chainId;
});
afterAll(() => t.close());

const siwe = (account: PrivateKeyAccount, fields: Parameters<typeof signIn>[3] = {}) =>
  signIn(t.app, account, chainId, fields);

const login = (body: unknown) => post(t.app, "/api/auth/login", body);

async function bounty() {
  const poster = await registerHosted(t.app, "poster", 10n * USDC);
  const response = await post(
    t.app,
    "/api/listings",
    {
      agent_id: poster.id,
      title: `Bounty ${uniqueWord()}`,
      description: "x",
      price_wei: "1000000",
      listing_type: "BOUNTY",
    },
    poster.key,
  );
  expect(response.status).toBe(201);
  return (await json(response)).id as string;
}

describe("Sign-In with Ethereum", () => {
  it("an owner signs in and claims a bounty for an agent it owns, not for another", async () => {
    const owner = newWallet();
    const external = await json(
      await post(t.app, "/api/agents/register", { agent_name: "owned external", wallet_address: owner.address }),
    );
    const hosted = await json(
      await post(t.app, "/api/agents/register", { name: "owned hosted", hosted: true, owner_address: owner.address }),
    );
    const stranger = await registerHosted(t.app, "not owned");

    const signedIn = await login(await siwe(owner));
    expect(signedIn.status).toBe(200);
    const session = await json(signedIn);
    expect(session.session_token).toMatch(/^sess_[0-9a-f]{64}$/);
    expect(session.agents.map((a: { id: string }) => a.id).sort()).toEqual([external.agent.id, hosted.agent.id].sort());
    const token = session.session_token;
    expect((await json(await get(t.app, "/api/auth/session", token))).agents).toHaveLength(2);

    const claim = (listing: string, body: unknown) => post(t.app, `/api/listings/${listing}/claim`, body, token);
    const claimed = await claim(await bounty(), { agent_id: hosted.agent.id });
    expect(claimed.status).toBe(200);
    const transaction = await json(await get(t.app, `/api/transactions/${(await json(claimed)).transaction_id}`));
    expect(transaction.seller.id).toBe(hosted.agent.id);

    const open = await bounty();
    expect((await claim(open, { agent_id: stranger.id })).status).toBe(403);
    expect((await claim(open, {})).status).toBe(400);
    expect((await claim(open, { agent_id: "not-a-uuid" })).status).toBe(400);
    // Elsewhere a session names the agent it acts for in X-Agent-Id (the body's agent_id is claim's).
    expect((await get(t.app, "/api/agents/me", token)).status).toBe(400);

    expect((await post(t.app, "/api/auth/logout", {}, token)).status).toBe(200);
    expect((await claim(open, { agent_id: external.agent.id })).status).toBe(401);
    expect((await get(t.app, "/api/auth/session", token)).status).toBe(401);
  });

  it("refuses a replayed nonce, an unknown nonce, another host or chain, an expired message and a forged signature", async () => {
    const signer = newWallet();
    const first = await siwe(signer);
    expect((await login(first)).status).toBe(200);
    expect((await login(first)).status).toBe(401);

    const refusals = [
      { ...(await siwe(signer, { nonce: "unknownnonce12345" })) },
      await siwe(signer, { domain: "evil.example" }),
      await siwe(signer, { chainId: chainId + 1 }),
      await siwe(signer, { expirationTime: new Date(Date.now() - 60_000) }),
    ];
    const forged = await siwe(signer);
    refusals.push({ ...forged, signature: await newWallet().signMessage({ message: forged.message }) });
    for (const body of refusals) {
      const response = await login(body);
      expect(response.status, body.message.split("\n")[0]).toBe(401);
    }
    for (const body of [{}, { message: "hello", signature: "0x12" }, { message: first.message }, { signature: "0x" }]) {
      expect([400, 401]).toContain((await login(body)).status);
    }
    // A forged sign-in did not spend its nonce: the real signature still works.
    expect((await login(forged)).status).toBe(200);
  });

  it("registration refuses owner_address for an external agent", async () => {
    const wallet = newWallet();
    const response = await post(t.app, "/api/agents/register", {
      agent_name: "x",
      wallet_address: wallet.address,
      owner_address: newWallet().address,
    });
    expect(response.status).toBe(400);
  });
});
