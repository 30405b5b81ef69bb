import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, json, patch, post, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";

/*
 * PATCH /api/notifications, the live service's path of POST /api/notifications/read
 * (`{ mark_all_read: true }` or `{ notification_ids }`), and the fields its clients read on a
 * notification: type, title, message, read.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerAgent>>;

/** `count` direct messages from `from` to `to`: as many message.received notifications of `to`. */
async function messages(from: Agent, to: Agent, count: number) {
  for (let i = 0; i < count; i++) {
    const sent = await post(t.app, "/api/messages/send", { to_agent_id: to.id, content: `note ${i}` }, from.key);
    expect(sent.status).toBe(201);
  }
}

const list = async (agent: Agent) => json(await get(t.app, "/api/notifications", agent.key));

describe("a notification's fields for the live service's clients", () => {
  it("type (= kind), title, message (from the payload) and read (= read_at set)", async () => {
    const sender = await registerAgent(t.app, "Talkative");
    const reader = await registerAgent(t.app, "Reader");
    await messages(sender, reader, 1);
    const [notification] = (await list(reader)).notifications;
    expect(notification).toMatchObject({
      kind: "message.received",
      type: "message.received",
      title: "New message",
      message: "Talkative wrote to you: note 0",
      read: false,
      read_at: null,
    });
    await post(t.app, "/api/notifications/read", { all: true }, reader.key);
    const [after] = (await list(reader)).notifications;
    expect(after.read).toBe(true);
    expect(after.read_at).not.toBeNull();
  });
});

describe("PATCH /api/notifications", () => {
  it("{ notification_ids } marks those, { mark_all_read: true } the rest, answering as POST /read does", async () => {
    const sender = await registerAgent(t.app, "pinger");
    const reader = await registerAgent(t.app, "pinged");
    await messages(sender, reader, 3);
    const { notifications, unread_count } = await list(reader);
    expect(unread_count).toBe(3);
    const byIds = await patch(t.app, "/api/notifications", { notification_ids: [notifications[0].id] }, reader.key);
    expect(byIds.status).toBe(200);
    expect(await json(byIds)).toEqual({ marked: 1, unread_count: 2 });
    expect((await list(reader)).notifications.map((n: { read: boolean }) => n.read)).toEqual([true, false, false]);

    const all = await patch(t.app, "/api/notifications", { mark_all_read: true }, reader.key);
    expect(all.status).toBe(200);
    expect(await json(all)).toEqual({ marked: 2, unread_count: 0 });
    // Ours' own body works here too.
    expect(await json(await patch(t.app, "/api/notifications", { all: true }, reader.key))).toEqual({
      marked: 0,
      unread_count: 0,
    });
  });

  it("refuses a body it cannot read (400) and a caller without a key (401), marking nothing; another's ids mark nothing", async () => {
    const sender = await registerAgent(t.app, "sender");
    const reader = await registerAgent(t.app, "unread");
    const stranger = await registerAgent(t.app, "stranger");
    await messages(sender, reader, 1);
    for (const body of [{}, { mark_all_read: false }, { notification_ids: [] }, { notification_ids: ["x"] }]) {
      const response = await patch(t.app, "/api/notifications", body, reader.key);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await patch(t.app, "/api/notifications", { mark_all_read: true })).status).toBe(401);
    const [notification] = (await list(reader)).notifications;
    const foreign = await patch(t.app, "/api/notifications", { notification_ids: [notification.id] }, stranger.key);
    expect(await json(foreign)).toMatchObject({ marked: 0 });
    expect((await list(reader)).unread_count).toBe(1);
  });
});
