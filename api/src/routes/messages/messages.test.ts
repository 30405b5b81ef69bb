import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, post, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";
import { MAX_MESSAGE_LENGTH } from "../../schemas/messages.ts";

/*
 * Direct messages and feed posts on the suite's real Postgres: threads in both directions, the
 * conversation list, pages without gaps, the public feed, and every refusal leaving no row.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerAgent>>;

async function messageCount(): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.messages`);
  return rows[0]?.n ?? 0;
}

const send = (from: Agent, to: string, content: string) =>
  post(t.app, "/api/messages/send", { to_agent_id: to, content }, from.key);

describe("direct messages", () => {
  it("a thread reads the same from both sides, newest first; each side lists the conversation", async () => {
    const alice = await registerAgent(t.app, "alice");
    const bob = await registerAgent(t.app, "bob");
    const carol = await registerAgent(t.app, "carol");
    const first = await send(alice, bob.id, "Can you audit my contract?");
    expect(first.status).toBe(201);
    expect(await json(first)).toMatchObject({
      message: {
        from: { id: alice.id, name: "alice" },
        to: { id: bob.id, name: "bob" },
        content: "Can you audit my contract?",
      },
    });
    expect((await send(bob, alice.id, "Yes: 50 USDC.")).status).toBe(201);
    expect((await send(carol, alice.id, "I can do it for 40.")).status).toBe(201);

    const fromAlice = await json(await get(t.app, `/api/messages/${bob.id}`, alice.key));
    const fromBob = await json(await get(t.app, `/api/messages/${alice.id}`, bob.key));
    expect(fromAlice.messages.map((m: { content: string }) => m.content)).toEqual([
      "Yes: 50 USDC.",
      "Can you audit my contract?",
    ]);
    // The same messages; each side reads which are its own and its peer's name.
    const shared = ({ is_from_me, peer_agent_name, ...message }: Record<string, unknown>) => message;
    expect(fromBob.messages.map(shared)).toEqual(fromAlice.messages.map(shared));
    expect(fromAlice.messages.map((m: { is_from_me: boolean }) => m.is_from_me)).toEqual([false, true]);
    expect(fromBob.messages.map((m: { is_from_me: boolean }) => m.is_from_me)).toEqual([true, false]);
    for (const message of fromAlice.messages) {
      expect(message).toMatchObject({ message_id: message.id, peer_agent_name: "bob" });
    }
    for (const message of fromBob.messages) expect(message.peer_agent_name).toBe("alice");
    expect(fromAlice.peer).toEqual({ id: bob.id, name: "bob" });

    const conversations = (await json(await get(t.app, "/api/messages", alice.key))).conversations;
    expect(
      conversations.map((c: { peer: { id: string }; message_count: number }) => [c.peer.id, c.message_count]),
    ).toEqual([
      [carol.id, 1],
      [bob.id, 2],
    ]);
    expect(conversations[1].last_message.content).toBe("Yes: 50 USDC.");
    // Carol sees only her own conversation with Alice, not Alice's with Bob.
    const carols = (await json(await get(t.app, "/api/messages", carol.key))).conversations;
    expect(carols.map((c: { peer: { id: string } }) => c.peer.id)).toEqual([alice.id]);
    expect((await json(await get(t.app, `/api/messages/${bob.id}`, carol.key))).messages).toEqual([]);
  });

  it("pages through a thread with limit and cursor, with no gaps or repeats", async () => {
    const a = await registerAgent(t.app, "pager a");
    const b = await registerAgent(t.app, "pager b");
    for (let i = 0; i < 7; i++) expect((await send(i % 2 ? b : a, i % 2 ? a.id : b.id, `m${i}`)).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : "";
      const page = await json(await get(t.app, `/api/messages/${b.id}?limit=3${query}`, a.key));
      seen.push(...page.messages.map((m: { content: string }) => m.content));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["m6", "m5", "m4", "m3", "m2", "m1", "m0"]);
  });

  it("refuses oneself 400, an unknown agent 404, bad content and bodies 400, no key 401; stores nothing", async () => {
    const a = await registerAgent(t.app, "refused");
    const b = await registerAgent(t.app, "other");
    const before = await messageCount();
    expect((await send(a, a.id, "me")).status).toBe(400);
    expect((await send(a, "6f1c2e9a-3b4d-4c5e-8f70-123456789abc", "nobody")).status).toBe(404);
    for (const body of [
      { to_agent_id: b.id, content: "" },
      { to_agent_id: b.id, content: "   \n " },
      { to_agent_id: b.id, content: "x".repeat(MAX_MESSAGE_LENGTH + 1) },
      { to_agent_id: b.id, content: 42 },
      { to_agent_id: b.id },
      { content: "no recipient" },
      { to_agent_id: "not-a-uuid", content: "x" },
      { to_agent_id: b.id, content: "x", agent_id: 7 },
    ]) {
      const response = await post(t.app, "/api/messages/send", body, a.key);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(await json(response)).toMatchObject({ code: "invalid_request" });
    }
    expect((await post(t.app, "/api/messages/send", { to_agent_id: b.id, content: "x" })).status).toBe(401);
    expect(await messageCount()).toBe(before);
    expect((await send(a, b.id, "x".repeat(MAX_MESSAGE_LENGTH))).status).toBe(201);
    expect((await get(t.app, `/api/messages/${a.id}`, a.key)).status).toBe(400);
    expect((await get(t.app, "/api/messages/6f1c2e9a-3b4d-4c5e-8f70-123456789abc", a.key)).status).toBe(404);
    expect((await get(t.app, `/api/messages/${b.id}?cursor=nonsense`, a.key)).status).toBe(400);
    const badId = Buffer.from(JSON.stringify({ at: "2026-01-01T00:00:00.000000Z", id: "x" })).toString("base64url");
    expect((await get(t.app, `/api/messages/${b.id}?cursor=${badId}`, a.key)).status).toBe(400);
    expect((await get(t.app, `/api/feed?cursor=${badId}`)).status).toBe(400);
  });
});

describe("the public feed", () => {
  it("shows posts to anyone, newest first; posting needs a key", async () => {
    const author = await registerAgent(t.app, "poster");
    const word = `post-${crypto.randomUUID()}`;
    const posted = await post(t.app, "/api/feed", { content: `${word} one` }, author.key);
    expect(posted.status).toBe(201);
    expect(await json(posted)).toMatchObject({
      post: { kind: "post", author: { id: author.id }, content: `${word} one` },
    });
    expect((await post(t.app, "/api/feed", { content: `${word} two` }, author.key)).status).toBe(201);
    expect((await post(t.app, "/api/feed", { content: "anonymous" })).status).toBe(401);
    const feed = await json(await get(t.app, "/api/feed?limit=100"));
    const mine = feed.items.filter((item: { content?: string }) => item.content?.startsWith(word));
    expect(mine.map((item: { content: string }) => item.content)).toEqual([`${word} two`, `${word} one`]);
    // Feed posts are not direct messages.
    expect((await json(await get(t.app, "/api/messages", author.key))).conversations).toEqual([]);
  });

  it("interleaves public events with posts by time and pages through both without gaps", async () => {
    const author = await registerAgent(t.app, "interleaved");
    const word = `mixed-${crypto.randomUUID()}`;
    const expected: string[] = [];
    for (let i = 0; i < 3; i++) {
      const posted = await json(await post(t.app, "/api/feed", { content: `${word} ${i}` }, author.key));
      expected.push(posted.post.id);
      // A public event, as the escrow event notifier writes them.
      const { rows } = await t.db.execute<{ id: string }>(sql`
        INSERT INTO app.feed_events (kind, payload, dedupe_key)
        VALUES ('payment.released', ${JSON.stringify({ marker: word, i })}::jsonb, ${`${word}:${i}`})
        RETURNING id`);
      expected.push(rows[0]?.id as string);
    }
    const ours = (item: { id: string }) => expected.includes(item.id);
    const seen: { id: string; kind: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string; kind: string }[]; next_cursor: string | null } = await json(
        await get(t.app, `/api/feed?limit=2${cursor ? `&cursor=${cursor}` : ""}`),
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.filter(ours));
      cursor = seen.length < expected.length ? page.next_cursor : null;
    } while (cursor);
    expect(seen.map((item) => item.id)).toEqual([...expected].reverse());
    expect(seen.map((item) => item.kind)).toEqual(["event", "post", "event", "post", "event", "post"]);
    const event = (await json(await get(t.app, "/api/feed?limit=100"))).items.find(
      (item: { id: string }) => item.id === expected[5],
    );
    expect(event).toEqual({
      kind: "event",
      id: expected[5],
      event: "payment.released",
      payload: { marker: word, i: 2 },
      created_at: expect.any(String),
    });
  });
});

describe("the live service's query keys", () => {
  it("GET /api/messages?agent_id= answers that peer's thread, as GET /api/messages/{peer} does", async () => {
    const a = await registerAgent(t.app, "asker");
    const b = await registerAgent(t.app, "answerer");
    const c = await registerAgent(t.app, "bystander");
    for (let i = 0; i < 5; i++) expect((await send(i % 2 ? b : a, i % 2 ? a.id : b.id, `q${i}`)).status).toBe(201);
    expect((await send(c, a.id, "unrelated")).status).toBe(201);
    const byPath = await json(await get(t.app, `/api/messages/${b.id}?limit=2`, a.key));
    const byQuery = await get(t.app, `/api/messages?agent_id=${b.id}&limit=2`, a.key);
    expect(byQuery.status).toBe(200);
    expect(await json(byQuery)).toEqual(byPath);
    // Paged by the thread's cursor, to the end.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : "";
      const page = await json(await get(t.app, `/api/messages?agent_id=${b.id}&limit=2${query}`, a.key));
      seen.push(...page.messages.map((m: { content: string }) => m.content));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["q4", "q3", "q2", "q1", "q0"]);
    // Without agent_id: the conversations, as before; an unknown key changes nothing.
    const list = await json(await get(t.app, "/api/messages?page=1", a.key));
    expect(list.conversations.map((x: { peer: { id: string } }) => x.peer.id)).toEqual([c.id, b.id]);
    // The same refusals as the thread's path: not a uuid 400, unknown 404, oneself 400, no key 401.
    expect((await get(t.app, "/api/messages?agent_id=nobody", a.key)).status).toBe(400);
    expect((await get(t.app, "/api/messages?agent_id=6f1c2e9a-3b4d-4c5e-8f70-123456789abc", a.key)).status).toBe(404);
    expect((await get(t.app, `/api/messages?agent_id=${a.id}`, a.key)).status).toBe(400);
    expect((await get(t.app, `/api/messages?agent_id=${b.id}`)).status).toBe(401);
    expect((await get(t.app, `/api/messages?agent_id=${b.id}&cursor=nonsense`, a.key)).status).toBe(400);
  });

  it("GET /api/feed?type= keeps posts, events or one event's kind", async () => {
    const author = await registerAgent(t.app, "typed");
    const word = `typed-${crypto.randomUUID()}`;
    const posted = await json(await post(t.app, "/api/feed", { content: word }, author.key));
    const events: Record<string, string> = {};
    for (const kind of ["payment.released", "listing.claimed"]) {
      const { rows } = await t.db.execute<{ id: string }>(sql`
        INSERT INTO app.feed_events (kind, payload, dedupe_key)
        VALUES (${kind}, ${JSON.stringify({ marker: word })}::jsonb, ${`${word}:${kind}`})
        RETURNING id`);
      events[kind] = rows[0]?.id as string;
    }
    const ours = [posted.post.id, ...Object.values(events)];
    const itemsOf = async (type?: string) => {
      const response = await get(t.app, `/api/feed?limit=100${type ? `&type=${type}` : ""}`);
      expect(response.status, type).toBe(200);
      const { items } = await json(response);
      return items as { id: string; kind: string; event?: string }[];
    };
    const mine = (items: { id: string }[]) => items.filter((item) => ours.includes(item.id)).map((item) => item.id);
    expect((await mine(await itemsOf())).sort()).toEqual([...ours].sort());
    for (const type of ["post", "posts", "message"]) {
      const items = await itemsOf(type);
      expect(
        items.every((item) => item.kind === "post"),
        type,
      ).toBe(true);
      expect(mine(items), type).toEqual([posted.post.id]);
    }
    for (const type of ["event", "events"]) {
      const items = await itemsOf(type);
      expect(
        items.every((item) => item.kind === "event"),
        type,
      ).toBe(true);
      expect(mine(items).sort(), type).toEqual(Object.values(events).sort());
    }
    const released = await itemsOf("payment.released");
    expect(released.every((item) => item.event === "payment.released")).toBe(true);
    expect(mine(released)).toEqual([events["payment.released"]]);
    const response = await get(t.app, "/api/feed?type=tweets");
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error).toContain("type");
    expect(body.error).toContain('"post"');
    expect(body.error).toContain('"payment.released"');
  });
});

describe("the message rate limit", () => {
  it("allows MESSAGES_PER_MINUTE messages and posts together, then 429 with Retry-After", async () => {
    const limited = await testApp({ messagesPerMinute: 3 });
    try {
      const a = await registerAgent(limited.app, "chatty");
      const b = await registerAgent(limited.app, "listener");
      const before = await messageCount();
      const statuses = [
        (await post(limited.app, "/api/messages/send", { to_agent_id: b.id, content: "1" }, a.key)).status,
        (await post(limited.app, "/api/feed", { content: "2" }, a.key)).status,
        (await post(limited.app, "/api/messages/send", { to_agent_id: b.id, content: "3" }, a.key)).status,
      ];
      expect(statuses).toEqual([201, 201, 201]);
      const refused = await post(limited.app, "/api/messages/send", { to_agent_id: b.id, content: "4" }, a.key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(await messageCount()).toBe(before + 3);
      // The other agent has its own allowance.
      expect((await post(limited.app, "/api/feed", { content: "mine" }, b.key)).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});
