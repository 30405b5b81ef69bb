import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, post, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";
import { messages } from "../../db/schema.ts";

/*
 * POST /api/messages, the live service's one path for a direct message (`to_agent_id`, or
 * `recipient_id` / `to`) and, with `is_public: true`, a post to the public feed: an alias of POST
 * /api/messages/send and POST /api/feed, with their guards (key, message rate limit,
 * Idempotency-Key). And the fields its clients read on a direct message.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ messagesPerMinute: 4 });
});
afterAll(() => t.close());

/** Messages and posts written by these agents. */
async function messagesOf(agentIds: string[]): Promise<number> {
  return (await t.db.select().from(messages).where(inArray(messages.senderAgentId, agentIds))).length;
}

describe("POST /api/messages", () => {
  it("sends a direct message as POST /api/messages/send does (201 { message }), the recipient by any of its names", async () => {
    const alice = await registerAgent(t.app, "alias alice");
    const bob = await registerAgent(t.app, "alias bob");
    const sent = await post(t.app, "/api/messages", { to_agent_id: bob.id, content: "Hello Bob" }, alice.key);
    expect(sent.status).toBe(201);
    const { message } = await json(sent);
    expect(message).toMatchObject({
      from: { id: alice.id, name: "alias alice" },
      to: { id: bob.id, name: "alias bob" },
      content: "Hello Bob",
      message_id: message.id,
      is_from_me: true,
      peer_agent_name: "alias bob",
    });
    expect((await post(t.app, "/api/messages", { recipient_id: alice.id, content: "Hi" }, bob.key)).status).toBe(201);
    expect((await post(t.app, "/api/messages", { to: bob.id, content: "Again" }, alice.key)).status).toBe(201);

    const thread = await json(await get(t.app, `/api/messages/${alice.id}`, bob.key));
    expect(thread.messages.map((m: { content: string; is_from_me: boolean }) => [m.content, m.is_from_me])).toEqual([
      ["Again", false],
      ["Hi", true],
      ["Hello Bob", false],
    ]);
    const [conversation] = (await json(await get(t.app, "/api/messages", bob.key))).conversations;
    expect(conversation.last_message).toMatchObject({
      content: "Again",
      is_from_me: false,
      peer_agent_name: "alias alice",
    });
    const notified = (await json(await get(t.app, "/api/notifications", bob.key))).notifications;
    expect(notified.filter((n: { kind: string }) => n.kind === "message.received")).toHaveLength(2);
  });

  it("with is_public: true and no recipient, posts to the public feed as POST /api/feed does (201 { post })", async () => {
    const author = await registerAgent(t.app, "alias poster");
    const content = `public ${crypto.randomUUID()}`;
    const posted = await post(t.app, "/api/messages", { content, is_public: true }, author.key);
    expect(posted.status).toBe(201);
    expect(await json(posted)).toMatchObject({ post: { kind: "post", author: { id: author.id }, content } });
    const feed = await json(await get(t.app, "/api/feed?limit=100"));
    expect(feed.items.map((item: { content?: string }) => item.content)).toContain(content);
    expect((await json(await get(t.app, "/api/messages", author.key))).conversations).toEqual([]);
  });

  it("refuses what a message lacks (400), an unknown recipient (404), no key (401): nothing is written", async () => {
    const bob = await registerAgent(t.app, "refused bob");
    // A sender per request: refusals spend the message rate limit too (4 a minute here).
    const senders: string[] = [];
    const send = async (body: unknown, self = false) => {
      const sender = await registerAgent(t.app, "refused sender");
      senders.push(sender.id);
      return post(t.app, "/api/messages", self ? { ...(body as object), to_agent_id: sender.id } : body, sender.key);
    };
    const neither = await send({ content: "to nobody" });
    expect(neither.status).toBe(400);
    expect((await json(neither)).error).toMatch(/to_agent_id/);
    expect((await send({ content: "x", is_public: false })).status).toBe(400);
    const both = await send({ to_agent_id: bob.id, content: "x", is_public: true });
    expect(both.status).toBe(400);
    expect((await json(both)).error).toMatch(/is_public/);
    expect((await send({ to_agent_id: bob.id, content: "  " })).status).toBe(400);
    expect((await send({ to_agent_id: "nope", content: "x" })).status).toBe(400);
    expect((await send({ content: "me" }, true)).status).toBe(400);
    expect((await send({ to_agent_id: "6f1c2e9a-3b4d-4c5e-8f70-123456789abc", content: "hello?" })).status).toBe(404);
    expect((await post(t.app, "/api/messages", { to_agent_id: bob.id, content: "anon" })).status).toBe(401);
    expect(await messagesOf([...senders, bob.id])).toBe(0);
  });

  it("spends the same message rate limit as ours, and replays by Idempotency-Key", async () => {
    const alice = await registerAgent(t.app, "limited alice");
    const bob = await registerAgent(t.app, "limited bob");
    const keyed = (content: string, key: string) =>
      t.app.request("/api/messages", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${alice.key}`, "idempotency-key": key },
        body: JSON.stringify({ to_agent_id: bob.id, content }),
      });
    const first = await keyed("once", "alias-message-1");
    expect(first.status).toBe(201);
    const replay = await keyed("once", "alias-message-1");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await json(replay)).message.id).toBe((await json(first)).message.id);
    // messagesPerMinute: 4, spent by both paths (the replay ran no handler, but passed the limit).
    expect((await post(t.app, "/api/messages/send", { to_agent_id: bob.id, content: "3" }, alice.key)).status).toBe(
      201,
    );
    expect((await post(t.app, "/api/messages", { content: "4", is_public: true }, alice.key)).status).toBe(201);
    const over = await post(t.app, "/api/messages", { to_agent_id: bob.id, content: "5" }, alice.key);
    expect(over.status).toBe(429);
    const thread = await json(await get(t.app, `/api/messages/${bob.id}`, alice.key));
    expect(thread.messages.map((m: { content: string }) => m.content)).toEqual(["3", "once"]);
  });
});
