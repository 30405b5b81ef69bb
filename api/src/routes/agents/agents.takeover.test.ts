import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { verifyWebhook } from "@agent-marketplace/sdk";
import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { type Address, zeroAddress } from "viem";
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
import { agents, apiKeys, webhookDeliveries } from "../../db/schema.ts";
import { createWebhookSender } from "../../notifications/webhook-sender.ts";

/*
 * A squatter registers an external agent with someone else's wallet. The wallet's holder, refused
 * with 409 when it registers, takes the agent over by signing the key challenge: a new key, the
 * squatter's keys revoked, its webhook (URL and secret) removed so no notification reaches it, and
 * the profile the holder's to change. A signature that is not the holder's, or a spent nonce,
 * changes nothing. The platform's own wallets cannot be registered at all.
 */

let t: TestApp;
let sender: ReturnType<typeof createWebhookSender>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  t = await testApp();
  sender = createWebhookSender({ db: t.db, config: t.config, logger: pino({ level: "silent" }) });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

/** A webhook receiver on this machine that keeps what it is sent, by path. */
function startReceiver() {
  const received: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.writeHead(200).end();
    });
  });
  return new Promise<{ url: (path: string) => string; received: typeof received; close: () => Promise<void> }>(
    (resolve) => {
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        resolve({
          url: (path) => `http://127.0.0.1:${port}/${path}`,
          received,
          close: () => new Promise((done) => server.close(() => done())),
        });
      });
    },
  );
}

/** A squatter's agent on `wallet`, with a webhook to its own receiver and a listing. */
async function squat(wallet: Address, path: string) {
  const registered = await post(t.app, "/api/agents/register", {
    agent_name: "The real holder",
    bio: "trust me",
    wallet_address: wallet,
  });
  expect(registered.status).toBe(201);
  const body = await json(registered);
  const squatter = { id: body.agent.id as string, key: body.api_key as string };
  const hooked = await json(await patch(t.app, "/api/agents/me", { webhook_url: receiver.url(path) }, squatter.key));
  expect(hooked.webhook_secret).toMatch(/^whsec_/);
  const listing = await createListing(t.app, squatter, { title: "Fake services" });
  return { ...squatter, webhookSecret: hooked.webhook_secret as string, listingId: listing.id as string };
}

/** The agent's row and its keys: what a refused takeover must leave as it was. */
async function stateOf(agentId: string) {
  const [agent] = await t.db.select().from(agents).where(eq(agents.id, agentId));
  const keys = await t.db.select().from(apiKeys).where(eq(apiKeys.agentId, agentId));
  return {
    agent,
    keys: keys.map(({ id, keyHash, revokedAt }) => ({ id, keyHash, revokedAt })).sort((a, b) => (a.id < b.id ? -1 : 1)),
  };
}

async function challengeFor(address: Address) {
  const response = await get(t.app, `/api/agents/key-challenge?address=${address}`);
  expect(response.status).toBe(200);
  return (await json(response)) as { nonce: string; message: string };
}

async function sendMessageTo(agentId: string) {
  const writer = await registerAgent(t.app, "writer");
  const sent = await post(t.app, "/api/messages/send", { to_agent_id: agentId, content: "Hello" }, writer.key);
  expect(sent.status).toBe(201);
  return (await json(sent)).message.id as string;
}

describe("a squatter loses the agent to the wallet's holder", () => {
  it("the holder gets 409 naming the key challenge, signs it and takes the agent: the squatter's key is 401, its webhook gone, the profile the holder's", async () => {
    const holder = newWallet();
    const squatter = await squat(holder.address, "squatter-1");
    // A notification waits for its webhook delivery to the squatter's URL.
    await sendMessageTo(squatter.id);
    const [pending] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.agentId, squatter.id));
    expect(pending).toMatchObject({ status: "pending" });

    // The holder's registration is refused, and the answer says how to take the agent over.
    const refused = await post(t.app, "/api/agents/register", { agent_name: "me", wallet_address: holder.address });
    expect(refused.status).toBe(409);
    const conflict = await json(refused);
    expect(conflict).toMatchObject({
      code: "wallet_registered",
      key_challenge: `/api/agents/key-challenge?address=${holder.address}`,
      rotate_key: "/api/agents/rotate-key",
    });
    expect(conflict.error).toMatch(/already exists.*key-challenge.*rotate-key/);

    // The holder signs the challenge: a new key; the squatter's is revoked and its webhook removed.
    const { nonce, message } = await challengeFor(holder.address);
    const signature = await holder.signMessage({ message });
    const taken = await post(t.app, conflict.rotate_key, { address: holder.address, nonce, signature });
    expect(taken.status).toBe(200);
    const answer = await json(taken);
    expect(answer).toMatchObject({ success: true, revoked_keys: 1, webhook_removed: true });
    expect(answer.api_key).toMatch(/^[0-9a-f]{64}$/);
    const key = answer.api_key as string;

    for (const request of [
      get(t.app, "/api/agents/me", squatter.key),
      patch(t.app, "/api/agents/me", { webhook_url: receiver.url("squatter-again") }, squatter.key),
      del(t.app, `/api/listings/${squatter.listingId}`, squatter.key),
      // A public read too: the squatter's key is nobody's now, at the door (the request budget).
      get(t.app, "/api/listings?limit=1", squatter.key),
    ]) {
      expect((await request).status).toBe(401);
    }
    const [row] = await t.db.select().from(agents).where(eq(agents.id, squatter.id));
    expect(row).toMatchObject({ webhookUrl: null, webhookSecretEncrypted: null, ownerAddress: null });

    // The delivery that waited goes nowhere; neither does a new notification.
    await sendMessageTo(squatter.id);
    await sender.tick(100);
    expect(receiver.received.filter((r) => r.path === "/squatter-1")).toEqual([]);
    const [settled] = await t.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, pending?.id ?? ""));
    expect(settled).toMatchObject({ status: "failed", lastError: "the agent removed its webhook_url" });

    // The profile is the holder's to change; its own webhook gets a new secret.
    const changed = await patch(
      t.app,
      "/api/agents/me",
      { name: "Me, really", bio: "the holder", webhook_url: receiver.url("holder-1") },
      key,
    );
    expect(changed.status).toBe(200);
    const profile = await json(changed);
    expect(profile).toMatchObject({
      id: squatter.id,
      name: "Me, really",
      bio: "the holder",
      wallet_address: holder.address,
    });
    expect(profile.webhook_secret).toMatch(/^whsec_/);
    expect(profile.webhook_secret).not.toBe(squatter.webhookSecret);
    // And so are the squatter's listings.
    expect((await del(t.app, `/api/listings/${squatter.listingId}`, key)).status).toBe(200);

    const notification = await sendMessageTo(squatter.id);
    await sender.tick(100);
    const [delivered] = receiver.received.filter(
      (r) => r.headers["x-notification-id"] !== undefined && r.path === "/holder-1",
    );
    expect(delivered?.body).toContain(notification);
    // Signed with the holder's new secret (the squatter's would not verify).
    const body = delivered?.body ?? "";
    await expect(
      verifyWebhook(profile.webhook_secret, String(delivered?.headers["x-signature"]), body),
    ).resolves.toEqual(JSON.parse(body));
  });

  it("the squatter cannot take it back: its own wallet's signature of the holder's challenge is refused", async () => {
    const holder = newWallet();
    const squatterWallet = newWallet();
    const squatter = await squat(holder.address, "squatter-2");
    const before = await stateOf(squatter.id);
    const { nonce, message } = await challengeFor(holder.address);
    const signature = await squatterWallet.signMessage({ message });
    const refused = await post(t.app, "/api/agents/rotate-key", { address: holder.address, nonce, signature });
    expect(refused.status).toBe(401);
    expect(await stateOf(squatter.id)).toEqual(before);
    expect((await get(t.app, "/api/agents/me", squatter.key)).status).toBe(200);
  });
});

describe("a takeover is refused, and changes nothing, with", () => {
  let holder: ReturnType<typeof newWallet>;
  let squatter: Awaited<ReturnType<typeof squat>>;
  beforeAll(async () => {
    holder = newWallet();
    squatter = await squat(holder.address, "squatter-3");
  });

  async function expectRefusedUnchanged(body: Record<string, unknown>, status = 401) {
    const before = await stateOf(squatter.id);
    const response = await post(t.app, "/api/agents/rotate-key", body);
    expect(response.status).toBe(status);
    expect(await json(response)).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    expect(await stateOf(squatter.id)).toEqual(before);
    expect((await get(t.app, "/api/agents/me", squatter.key)).status).toBe(200);
  }

  it("a wrong signature", async () => {
    const { nonce } = await challengeFor(holder.address);
    await expectRefusedUnchanged({ address: holder.address, nonce, signature: `0x${"ab".repeat(65)}` });
  });

  it("the holder's signature of another message", async () => {
    const { nonce } = await challengeFor(holder.address);
    const signature = await holder.signMessage({ message: `please rotate, nonce ${nonce}` });
    await expectRefusedUnchanged({ address: holder.address, nonce, signature });
  });

  it("a challenge issued for another wallet, signed by that wallet", async () => {
    const other = newWallet();
    const { nonce, message } = await challengeFor(other.address);
    const signature = await other.signMessage({ message });
    await expectRefusedUnchanged({ address: holder.address, nonce, signature });
  });

  it("a nonce already spent: by a refused attempt, or by a takeover (a replay)", async () => {
    const first = await challengeFor(holder.address);
    await expectRefusedUnchanged({ address: holder.address, nonce: first.nonce, signature: `0x${"cd".repeat(65)}` });
    const good = await holder.signMessage({ message: first.message });
    await expectRefusedUnchanged({ address: holder.address, nonce: first.nonce, signature: good });

    // Taken over for real; the same request again changes nothing.
    const second = await challengeFor(holder.address);
    const body = {
      address: holder.address,
      nonce: second.nonce,
      signature: await holder.signMessage({ message: second.message }),
    };
    const taken = await post(t.app, "/api/agents/rotate-key", body);
    expect(taken.status).toBe(200);
    const key = (await json(taken)).api_key as string;
    const after = await stateOf(squatter.id);
    const replay = await post(t.app, "/api/agents/rotate-key", body);
    expect(replay.status).toBe(401);
    expect(await stateOf(squatter.id)).toEqual(after);
    expect((await get(t.app, "/api/agents/me", key)).status).toBe(200);
  });
});

describe("the platform's own wallets cannot be registered", () => {
  it("the escrow's owner, arbiter, operator and fee recipient, its contracts, the service accounts and the zero address: 400 reserved_address, nothing stored", async () => {
    const { deployment } = inject("stack");
    const escrow = deployment.contracts.AgentEscrow.address;
    const read = (functionName: "owner" | "arbiter" | "operator" | "feeRecipient") =>
      t.services.chain.publicClient.readContract({ address: escrow, abi: agentEscrowAbi, functionName });
    const reserved: Address[] = [
      await read("owner"),
      await read("arbiter"),
      await read("operator"),
      await read("feeRecipient"),
      escrow,
      deployment.contracts.USDC.address,
      t.services.relayer.address,
      zeroAddress,
    ];
    const count = async () =>
      (await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.agents`)).rows[0]?.n;
    for (const wallet of reserved) {
      const before = await count();
      for (const address of [wallet, wallet.toLowerCase()]) {
        const response = await post(t.app, "/api/agents/register", { agent_name: "platform", wallet_address: address });
        expect(response.status, address).toBe(400);
        expect(await json(response)).toMatchObject({ code: "reserved_address", field: "wallet_address" });
      }
      expect(await count()).toBe(before);
    }
    // Any other wallet registers as before.
    expect((await registerAgent(t.app, "not the platform")).key).toMatch(/^[0-9a-f]{64}$/);
  });
});
