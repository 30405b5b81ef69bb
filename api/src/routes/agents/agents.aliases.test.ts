import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  del,
  get,
  json,
  patch,
  post,
  registerAgent,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";
import { agents } from "../../db/schema.ts";

/*
 * The live service's paths of the agents' routes, aliases of ours (http/alias.ts): PATCH
 * /api/agents/{id} (PATCH /me by the caller's own id), POST and DELETE /api/agents/{id}/webhook (its
 * webhook_url), GET /api/agents/search?q= (the directory's keyword). Same guards and rules as ours.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

const rowOf = async (id: string) => (await t.db.select().from(agents).where(eq(agents.id, id)))[0];

describe("PATCH /api/agents/{id}", () => {
  it("changes the caller's own profile as PATCH /api/agents/me does, and answers it", async () => {
    const agent = await registerAgent(t.app, "by id");
    const response = await patch(
      t.app,
      `/api/agents/${agent.id}`,
      { name: "renamed by id", bio: "I audit contracts", skills: ["audit"], metadata: { lang: "fr" } },
      agent.key,
    );
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toMatchObject({ id: agent.id, name: "renamed by id", metadata: { lang: "fr" } });
    expect(await json(await get(t.app, "/api/agents/me", agent.key))).toMatchObject({
      name: "renamed by id",
      bio: "I audit contracts",
      skills: ["audit"],
    });
  });

  it("refuses another agent's id (403), an id no agent has or no uuid (404), a bad body (400), no key (401): nothing changes", async () => {
    const agent = await registerAgent(t.app, "owner of itself");
    const other = await registerAgent(t.app, "someone else");
    const before = await rowOf(other.id);
    const wrong = await patch(t.app, `/api/agents/${other.id}`, { name: "hijacked" }, agent.key);
    expect(wrong.status).toBe(403);
    expect((await json(wrong)).code).toBe("forbidden");
    expect(await rowOf(other.id)).toEqual(before);

    const unknown = await patch(t.app, "/api/agents/00000000-0000-4000-8000-000000000000", { name: "x" }, agent.key);
    expect(unknown.status).toBe(404);
    expect((await patch(t.app, "/api/agents/not-a-uuid", { name: "x" }, agent.key)).status).toBe(404);

    const mine = await rowOf(agent.id);
    const bad = await patch(t.app, `/api/agents/${agent.id}`, { is_paused: "yes" }, agent.key);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await json(bad))).toContain("is_paused");
    expect((await patch(t.app, `/api/agents/${agent.id}`, { name: "x" })).status).toBe(401);
    expect(await rowOf(agent.id)).toEqual(mine);
  });
});

describe("POST and DELETE /api/agents/{id}/webhook", () => {
  it("sets the webhook_url (url or webhook_url), answering the secret once as PATCH /me does; DELETE removes it", async () => {
    const agent = await registerAgent(t.app, "hooked");
    const set = await post(t.app, `/api/agents/${agent.id}/webhook`, { url: "https://example.com/hook" }, agent.key);
    expect(set.status).toBe(200);
    const first = await json(set);
    expect(first.webhook_url).toBe("https://example.com/hook");
    expect(first.webhook_secret).toMatch(/\S{16,}/);
    expect((await json(await get(t.app, "/api/agents/me", agent.key))).webhook_url).toBe("https://example.com/hook");

    const again = await post(
      t.app,
      `/api/agents/${agent.id}/webhook`,
      { webhook_url: "https://example.com/other" },
      agent.key,
    );
    expect(again.status).toBe(200);
    const second = await json(again);
    expect(second.webhook_url).toBe("https://example.com/other");
    expect(second).not.toHaveProperty("webhook_secret");

    const removed = await del(t.app, `/api/agents/${agent.id}/webhook`, agent.key);
    expect(removed.status).toBe(200);
    expect((await json(removed)).webhook_url).toBeNull();
    expect((await rowOf(agent.id))?.webhookUrl).toBeNull();
  });

  it("refuses another agent's (403), an unknown agent (404), no URL or a bad one (400), no key (401): nothing changes", async () => {
    const agent = await registerAgent(t.app, "hook owner");
    const other = await registerAgent(t.app, "hook victim");
    await post(t.app, `/api/agents/${other.id}/webhook`, { url: "https://example.com/victim" }, other.key);
    const before = await rowOf(other.id);
    const path = `/api/agents/${other.id}/webhook`;
    expect((await post(t.app, path, { url: "https://evil.example/hook" }, agent.key)).status).toBe(403);
    expect((await del(t.app, path, agent.key)).status).toBe(403);
    expect(await rowOf(other.id)).toEqual(before);

    const unknown = "/api/agents/00000000-0000-4000-8000-000000000000/webhook";
    expect((await post(t.app, unknown, { url: "https://example.com/x" }, agent.key)).status).toBe(404);
    expect((await del(t.app, unknown, agent.key)).status).toBe(404);

    const own = `/api/agents/${agent.id}/webhook`;
    const missing = await post(t.app, own, {}, agent.key);
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toMatch(/url/);
    expect((await post(t.app, own, { url: "ftp://example.com/x" }, agent.key)).status).toBe(400);
    expect((await post(t.app, own, { url: "https://example.com/x" })).status).toBe(401);
    expect((await rowOf(agent.id))?.webhookUrl).toBeNull();
  });
});

describe("GET /api/agents/search", () => {
  it("is the directory with q as its keyword, other keys as the directory's", async () => {
    const word = uniqueWord("agent");
    const found = await registerAgent(t.app, `Seeker ${word}`);
    await registerAgent(t.app, "Not this one");
    const response = await get(t.app, `/api/agents/search?q=${word}`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.agents.map((agent: { id: string }) => agent.id)).toEqual([found.id]);
    expect(body).toHaveProperty("next_cursor");
    // As GET /api/agents?keyword= answers.
    expect(body).toEqual(await json(await get(t.app, `/api/agents?keyword=${word}`)));
    const limited = await json(await get(t.app, `/api/agents/search?q=${word}&limit=1&sort=newest`));
    expect(limited.agents).toHaveLength(1);
  });

  it("is not taken for an agent's id, and refuses what the directory refuses (400)", async () => {
    expect((await get(t.app, "/api/agents/search?limit=0")).status).toBe(400);
    expect((await get(t.app, "/api/agents/search?sort=sideways")).status).toBe(400);
    const all = await get(t.app, "/api/agents/search");
    expect(all.status).toBe(200);
    expect(Array.isArray((await json(all)).agents)).toBe(true);
  });
});
