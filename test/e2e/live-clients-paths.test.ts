/**
 * Clients of the live service, over real HTTP against `pnpm start`: every request of its paths that
 * ours alias (POST /api/messages, PATCH /api/notifications, PATCH /api/agents/{id}, POST and DELETE
 * /api/agents/{id}/webhook, GET /api/transactions/{id}/evidence and /review, GET
 * /api/agents/search?q=) sent exactly as its MCP package, skill.md routines and docs send them, and
 * the response fields they read (notifications' type/title/message/read, messages' message_id,
 * is_from_me, peer_agent_name, the wallet balance's wallet_address/balance_wei/balance_usdc, POST
 * /api/transactions' id). Each answer is checked, and its effect read back through our own routes.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { callApi, eventually, registerHostedAgent } from "./stack-process.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

const { apiUrl } = inject("sharedStack");

interface Agent {
  id: string;
  key: string;
  wallet: string;
}

const call = (method: string, route: string, body?: unknown, key?: string) => callApi(apiUrl, method, route, body, key);
const hosted = (name: string, usdcWei = 0n): Promise<Agent> => registerHostedAgent(apiUrl, name, usdcWei);
const USDC = 1_000_000n;

/** A FIXED listing of `seller` bought by `buyer` and delivered: the transaction's id. */
async function delivered(seller: Agent, buyer: Agent, title: string): Promise<string> {
  const listing = await call(
    "POST",
    "/api/listings",
    { agent_id: seller.id, title, description: "live clients", price_wei: "2000000" },
    seller.key,
  );
  expect(listing.status).toBe(201);
  const bought = await call("POST", `/api/listings/${listing.body.id}/buy`, { buyer_agent_id: buyer.id }, buyer.key);
  expect(bought.body.state).toBe("FUNDED");
  const id = bought.body.transaction_id as string;
  const done = await call("POST", `/api/transactions/${id}/deliver`, { deliverable: "the work" }, seller.key);
  expect(done.status).toBe(200);
  return id;
}

describe("the live service's paths and fields, as its clients send and read them", () => {
  it("messages: a direct message and a public post through POST /api/messages", async () => {
    const alice = await hosted("Live Alice");
    const bob = await hosted("Live Bob");

    const direct = await call(
      "POST",
      "/api/messages",
      { to_agent_id: bob.id, content: "Can you review my PR?" },
      alice.key,
    );
    expect(direct.status).toBe(201);
    expect(direct.body.message).toMatchObject({
      message_id: direct.body.message.id,
      is_from_me: true,
      peer_agent_name: "Live Bob",
      content: "Can you review my PR?",
    });
    // Arrived in the peer's thread, as the peer reads it.
    const thread = await call("GET", `/api/messages/${alice.id}`, undefined, bob.key);
    expect(thread.status).toBe(200);
    expect(thread.body.messages[0]).toMatchObject({
      message_id: direct.body.message.id,
      content: "Can you review my PR?",
      is_from_me: false,
      peer_agent_name: "Live Alice",
    });
    const conversations = await call("GET", "/api/messages", undefined, bob.key);
    expect(conversations.body.conversations[0].last_message).toMatchObject({
      is_from_me: false,
      peer_agent_name: "Live Alice",
    });

    const text = `Live post ${randomUUID()}`;
    const posted = await call("POST", "/api/messages", { content: text, is_public: true }, alice.key);
    expect(posted.status).toBe(201);
    expect(posted.body.post).toMatchObject({ content: text, author: { id: alice.id } });
    const feed = await call("GET", "/api/feed?limit=100");
    expect(feed.body.items.map((item: { content?: string }) => item.content)).toContain(text);

    const nowhere = await call("POST", "/api/messages", { content: "to whom?" }, alice.key);
    expect(nowhere.status).toBe(400);
    expect(nowhere.body.error).toMatch(/to_agent_id/);
  });

  it("notifications: the fields they read, and PATCH /api/notifications by ids and all", async () => {
    const sender = await hosted("Live Sender");
    const reader = await hosted("Live Reader");
    for (const content of ["one", "two", "three"]) {
      expect((await call("POST", "/api/messages", { to_agent_id: reader.id, content }, sender.key)).status).toBe(201);
    }
    const listed = await call("GET", "/api/notifications", undefined, reader.key);
    expect(listed.body.unread_count).toBe(3);
    for (const notification of listed.body.notifications) {
      expect(notification).toMatchObject({
        type: "message.received",
        kind: "message.received",
        title: "New message",
        message: expect.stringMatching(/^Live Sender wrote to you: (one|two|three)$/),
        read: false,
      });
    }

    const [first] = listed.body.notifications;
    const byIds = await call("PATCH", "/api/notifications", { notification_ids: [first.id] }, reader.key);
    expect(byIds).toEqual({ status: 200, body: { marked: 1, unread_count: 2 } });
    const afterIds = await call("GET", "/api/notifications", undefined, reader.key);
    expect(afterIds.body.notifications.find((n: { id: string }) => n.id === first.id).read).toBe(true);

    const all = await call("PATCH", "/api/notifications", { mark_all_read: true }, reader.key);
    expect(all).toEqual({ status: 200, body: { marked: 2, unread_count: 0 } });
    const unread = await call("GET", "/api/notifications?unread=true", undefined, reader.key);
    expect(unread.body).toMatchObject({ notifications: [], unread_count: 0 });
  });

  it("the profile by id, its webhook set and removed (deliveries carry the same fields), and search", async () => {
    const word = `Lively${randomUUID().slice(0, 8)}`;
    const agent = await hosted("Live Profile");
    const other = await hosted("Live Other");

    const changed = await call(
      "PATCH",
      `/api/agents/${agent.id}`,
      { name: `Live ${word}`, bio: "Reviews pull requests", skills: ["coding"] },
      agent.key,
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: agent.id, name: `Live ${word}` });
    expect((await call("GET", "/api/agents/me", undefined, agent.key)).body).toMatchObject({
      name: `Live ${word}`,
      bio: "Reviews pull requests",
      skills: ["coding"],
    });
    expect((await call("PATCH", `/api/agents/${other.id}`, { name: "taken over" }, agent.key)).status).toBe(403);
    expect((await call("GET", `/api/agents/${other.id}`)).body.name).toBe("Live Other");

    const found = await call("GET", `/api/agents/search?q=${word}`);
    expect(found.status).toBe(200);
    expect(found.body.agents.map((a: { id: string }) => a.id)).toEqual([agent.id]);

    const receiver = await startWebhookReceiver(() => 200);
    try {
      const set = await call("POST", `/api/agents/${agent.id}/webhook`, { url: receiver.url }, agent.key);
      expect(set.status).toBe(200);
      expect(set.body.webhook_url).toBe(receiver.url);
      expect(set.body.webhook_secret).toMatch(/^whsec_/);
      expect((await call("GET", "/api/agents/me", undefined, agent.key)).body.webhook_url).toBe(receiver.url);
      expect((await call("POST", `/api/agents/${other.id}/webhook`, { url: receiver.url }, agent.key)).status).toBe(
        403,
      );

      await call("POST", "/api/messages", { to_agent_id: agent.id, content: "ping the hook" }, other.key);
      const delivery = await eventually(async () => {
        const [received] = receiver.received;
        if (!received) throw new Error("no delivery yet");
        return JSON.parse(received.body);
      });
      expect(delivery).toMatchObject({
        kind: "message.received",
        type: "message.received",
        title: "New message",
        message: "Live Other wrote to you: ping the hook",
      });

      const removed = await call("DELETE", `/api/agents/${agent.id}/webhook`, undefined, agent.key);
      expect(removed.status).toBe(200);
      expect(removed.body.webhook_url).toBeNull();
      expect((await call("GET", "/api/agents/me", undefined, agent.key)).body.webhook_url).toBeNull();
    } finally {
      receiver.close();
    }
  });

  it("transactions: POST answers id; a dispute's evidence and a released one's reviews by their paths", async () => {
    const seller = await hosted("Live Seller");
    const buyer = await hosted("Live Buyer", 10n * USDC);

    const direct = await call(
      "POST",
      "/api/transactions",
      { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: "1000000", description: "direct" },
      buyer.key,
    );
    expect(direct.status).toBe(201);
    expect(direct.body.id).toBe(direct.body.transaction_id);
    expect((await call("GET", `/api/transactions/${direct.body.id}`)).body.id).toBe(direct.body.id);

    const disputedId = await delivered(seller, buyer, "Live disputed work");
    expect((await call("GET", `/api/transactions/${disputedId}/evidence`, undefined, buyer.key)).body.evidence).toEqual(
      [],
    );
    expect(
      (await call("POST", `/api/transactions/${disputedId}/dispute`, { reason: "Half missing" }, buyer.key)).status,
    ).toBe(200);
    const added = await call(
      "POST",
      `/api/transactions/${disputedId}/evidence`,
      { content: "Section 2 is missing", url: "https://example.com/diff" },
      buyer.key,
    );
    expect(added.status).toBe(201);
    const evidence = await call("GET", `/api/transactions/${disputedId}/evidence`, undefined, seller.key);
    expect(evidence.status).toBe(200);
    expect(evidence.body).toMatchObject({ transaction_id: disputedId, state: "DISPUTED" });
    expect(evidence.body.evidence).toEqual([
      expect.objectContaining({
        id: added.body.evidence_id,
        submitted_by: "buyer",
        content: "Section 2 is missing",
        url: "https://example.com/diff",
      }),
    ]);
    const outsider = await hosted("Live Outsider");
    expect((await call("GET", `/api/transactions/${disputedId}/evidence`, undefined, outsider.key)).status).toBe(403);

    const releasedId = await delivered(seller, buyer, "Live reviewed work");
    expect((await call("GET", `/api/transactions/${releasedId}/review`)).body).toEqual({
      transaction_id: releasedId,
      reviews: [],
    });
    expect((await call("POST", `/api/transactions/${releasedId}/release`, {}, buyer.key)).status).toBe(200);
    const reviewed = await call(
      "POST",
      `/api/transactions/${releasedId}/review`,
      { rating: 5, comment: "Great" },
      buyer.key,
    );
    expect(reviewed.status).toBe(201);
    const reviews = await call("GET", `/api/transactions/${releasedId}/review`);
    expect(reviews.status).toBe(200);
    expect(reviews.body.reviews).toEqual([
      expect.objectContaining({
        id: reviewed.body.review.id,
        rating: 5,
        comment: "Great",
        reviewee: expect.objectContaining({ id: seller.id }),
      }),
    ]);
    expect((await call("GET", `/api/transactions/${randomUUID()}/review`)).status).toBe(404);
  });

  it("the wallet balance under the names its clients read", async () => {
    const agent = await hosted("Live Wallet", 3n * USDC);
    const balance = await call("GET", `/api/wallet/balance?agent_id=${agent.id}`);
    expect(balance.status).toBe(200);
    expect(balance.body).toMatchObject({
      wallet_address: agent.wallet,
      address: agent.wallet,
      balance_wei: "3000000",
      usdc_wei: "3000000",
      balance_usdc: "3.00",
      usdc_formatted: "3.00",
    });
  });
});
