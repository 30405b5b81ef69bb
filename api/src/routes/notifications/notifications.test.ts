import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventStreamReader } from "../../../test/event-stream.ts";
import { get, json, post, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";

/*
 * Notifications on the suite's real Postgres: produced with the event they announce (here, direct
 * messages), listed newest first with the unread count, marked read by id or all at once, and
 * never another agent's.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerAgent>>;
const list = async (agent: Agent, query = "") => json(await get(t.app, `/api/notifications${query}`, agent.key));
const read = (agent: Agent, body: unknown) => post(t.app, "/api/notifications/read", body, agent.key);

describe("notifications", () => {
  it("a direct message notifies its recipient once, not its sender", async () => {
    const sender = await registerAgent(t.app, "sender");
    const recipient = await registerAgent(t.app, "recipient");
    const sent = await json(
      await post(t.app, "/api/messages/send", { to_agent_id: recipient.id, content: "Ping" }, sender.key),
    );
    const inbox = await list(recipient);
    expect(inbox.unread_count).toBe(1);
    expect(inbox.notifications).toEqual([
      {
        id: expect.any(String),
        kind: "message.received",
        payload: { message_id: sent.message.id, from: { id: sender.id, name: "sender" }, preview: "Ping" },
        created_at: expect.any(String),
        read_at: null,
        type: "message.received",
        title: "New message",
        message: "sender wrote to you: Ping",
        read: false,
      },
    ]);
    expect(await list(sender)).toMatchObject({ notifications: [], unread_count: 0 });
  });

  it("marks read by id (only the caller's own) or all; filters unread; pages without gaps", async () => {
    const sender = await registerAgent(t.app, "chatty");
    const me = await registerAgent(t.app, "me");
    const other = await registerAgent(t.app, "other");
    for (let i = 0; i < 5; i++) {
      expect(
        (await post(t.app, "/api/messages/send", { to_agent_id: me.id, content: `m${i}` }, sender.key)).status,
      ).toBe(201);
    }
    await post(t.app, "/api/messages/send", { to_agent_id: other.id, content: "theirs" }, sender.key);
    const all = (await list(me)).notifications;
    expect(all.map((n: { payload: { preview: string } }) => n.payload.preview)).toEqual(["m4", "m3", "m2", "m1", "m0"]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { notifications: { id: string }[]; next_cursor: string | null } = await list(
        me,
        `?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.notifications.map((n) => n.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((n: { id: string }) => n.id));

    // Another agent's ids change nothing for anyone.
    const theirs = (await list(other)).notifications[0].id;
    expect(await json(await read(me, { notification_ids: [theirs] }))).toEqual({ marked: 0, unread_count: 5 });
    expect((await list(other)).unread_count).toBe(1);

    expect(await json(await read(me, { notification_ids: [all[0].id, all[1].id] }))).toEqual({
      marked: 2,
      unread_count: 3,
    });
    expect((await list(me, "?unread=true")).notifications).toHaveLength(3);
    expect((await list(me)).notifications[0].read_at).not.toBeNull();
    // Marking again changes nothing.
    expect(await json(await read(me, { notification_ids: [all[0].id] }))).toEqual({ marked: 0, unread_count: 3 });
    expect(await json(await read(me, { all: true }))).toEqual({ marked: 3, unread_count: 0 });
    expect((await list(other)).unread_count).toBe(1);
  });

  it("refuses bad bodies and queries (400) and missing keys (401)", async () => {
    const me = await registerAgent(t.app, "strict");
    for (const body of [
      {},
      { all: false },
      { notification_ids: [] },
      { notification_ids: ["nope"] },
      { notification_ids: Array.from({ length: 101 }, () => crypto.randomUUID()) },
      { all: 1 },
    ]) {
      expect((await read(me, body)).status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    expect((await get(t.app, "/api/notifications?unread=maybe", me.key)).status).toBe(400);
    expect((await get(t.app, "/api/notifications?cursor=nonsense", me.key)).status).toBe(400);
    expect((await get(t.app, "/api/notifications")).status).toBe(401);
    expect((await post(t.app, "/api/notifications/read", { all: true })).status).toBe(401);
  });
});

/** An open event stream of `agent`. */
async function openStream(agent: Agent, lastEventId?: string) {
  const abort = new AbortController();
  const response = await t.app.request("/api/notifications/stream", {
    headers: { authorization: `Bearer ${agent.key}`, ...(lastEventId && { "last-event-id": lastEventId }) },
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const events = eventStreamReader(response.body as ReadableStream<Uint8Array>);
  return {
    next: events.next,
    close() {
      abort.abort();
      return events.close();
    },
  };
}

const send = (from: Agent, to: Agent, content: string) =>
  post(t.app, "/api/messages/send", { to_agent_id: to.id, content }, from.key);

describe("the notification stream", () => {
  it("opens with the unread count, then carries each new notification of the caller only", async () => {
    const me = await registerAgent(t.app, "listener");
    const friend = await registerAgent(t.app, "friend");
    const other = await registerAgent(t.app, "someone else");
    await send(friend, me, "before the stream");
    const stream = await openStream(me);
    try {
      expect(await stream.next()).toEqual({ event: "ready", id: undefined, data: JSON.stringify({ unread_count: 1 }) });
      await send(friend, other, "not for the listener");
      await send(friend, me, "live");
      const live = await stream.next();
      expect(live.event).toBe("message.received");
      const notification = JSON.parse(live.data);
      expect(live.id).toBe(notification.id);
      expect(notification).toMatchObject({ kind: "message.received", payload: { preview: "live" }, read_at: null });
      // The same notification as the list has.
      expect((await list(me)).notifications[0]).toEqual(notification);
      await send(friend, me, "and another");
      expect(JSON.parse((await stream.next()).data).payload.preview).toBe("and another");
    } finally {
      await stream.close();
    }
  });

  it("a reconnect with Last-Event-ID receives what followed, in order, once", async () => {
    const me = await registerAgent(t.app, "reconnecting");
    const friend = await registerAgent(t.app, "friend");
    const first = await openStream(me);
    await first.next(); // ready
    await send(friend, me, "one");
    const seen = await first.next();
    await first.close();
    await send(friend, me, "two");
    await send(friend, me, "three");
    const again = await openStream(me, seen.id);
    try {
      await again.next(); // ready
      const previews = [
        JSON.parse((await again.next()).data).payload.preview,
        JSON.parse((await again.next()).data).payload.preview,
      ];
      expect(previews).toEqual(["two", "three"]);
      await expect(again.next(500)).rejects.toThrow(/no event/);
    } finally {
      await again.close();
    }
  });

  it("many notifications written at once all arrive", async () => {
    const me = await registerAgent(t.app, "busy");
    const friends = await Promise.all(Array.from({ length: 5 }, () => registerAgent(t.app, "friend")));
    const stream = await openStream(me);
    try {
      await stream.next(); // ready
      await Promise.all(friends.flatMap((friend, i) => [send(friend, me, `a${i}`), send(friend, me, `b${i}`)]));
      const previews: string[] = [];
      for (let i = 0; i < 10; i++) previews.push(JSON.parse((await stream.next()).data).payload.preview);
      expect(previews.sort()).toEqual(["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4"]);
    } finally {
      await stream.close();
    }
  });

  it("stays open when a read fails (no database connection free), and carries on once it can read", async () => {
    // An app whose pool has 2 connections and gives up waiting for one after 200 ms.
    const tight = await testApp({}, { max: 2, connectionTimeoutMs: 200 });
    const me = await registerAgent(tight.app, "patient");
    const friend = await registerAgent(t.app, "friend");
    const abort = new AbortController();
    const response = await tight.app.request("/api/notifications/stream", {
      headers: { authorization: `Bearer ${me.key}` },
      signal: abort.signal,
    });
    const events = eventStreamReader(response.body as ReadableStream<Uint8Array>);
    try {
      expect((await events.next()).event).toBe("ready");
      // Every connection taken: the wake-up of the next message finds none, and its read fails.
      const held = await Promise.all([tight.db.$client.connect(), tight.db.$client.connect()]);
      await send(friend, me, "while busy");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const client of held) client.release();
      await send(friend, me, "after");
      const previews = [JSON.parse((await events.next()).data), JSON.parse((await events.next()).data)].map(
        (n) => n.payload.preview,
      );
      expect(previews).toEqual(["while busy", "after"]);
    } finally {
      abort.abort();
      await events.close();
      await tight.close();
    }
  });

  it("needs the agent's key", async () => {
    expect((await get(t.app, "/api/notifications/stream")).status).toBe(401);
  });

  it("an agent holds at most 5 streams at once: a sixth is 429 until one closes", async () => {
    const me = await registerAgent(t.app, "many streams");
    const streams = [];
    for (let i = 0; i < 5; i++) {
      const stream = await openStream(me);
      await stream.next(); // ready: the stream is open
      streams.push(stream);
    }
    try {
      const sixth = await get(t.app, "/api/notifications/stream", me.key);
      expect(sixth.status).toBe(429);
      expect(await json(sixth)).toMatchObject({ code: "too_many_streams", max_streams: 5 });
      // Another agent's streams are its own.
      const other = await openStream(await registerAgent(t.app, "one stream"));
      await other.close();
      // Closing one makes room (the server hears of the close a moment later).
      await streams.shift()?.close();
      await expect
        .poll(async () => {
          const again = await get(t.app, "/api/notifications/stream", me.key);
          if (again.status === 200) await again.body?.cancel();
          return again.status;
        })
        .toBe(200);
    } finally {
      await Promise.all(streams.map((stream) => stream.close()));
    }
  });
});
