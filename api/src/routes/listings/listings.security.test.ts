import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createListing,
  del,
  get,
  json,
  listingRowsOf,
  patch,
  post,
  registerAgent,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";
import { agents } from "../../db/schema.ts";

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerAgent>>;
let intruder: Awaited<ReturnType<typeof registerAgent>>;
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
let listing: any;

beforeAll(async () => {
  t = await testApp({ registrationsPerHour: 1_000 });
  owner = await registerAgent(t.app, "Owner");
  intruder = await registerAgent(t.app, "Intruder");
  listing = await createListing(t.app, owner, { title: "Owned", price_wei: "1500000" });
});
afterAll(() => t.close());

/** Checks the one error shape and the status. */
async function expectError(response: Response, status: number) {
  const body = await json(response);
  expect({ status: response.status, body }).toMatchObject({
    status,
    body: { error: expect.any(String), code: expect.any(String) },
  });
  return body;
}

/** Rows of both agents, to show that a refused request changed nothing. */
async function snapshot() {
  return { owner: await listingRowsOf(t.db, owner.id), intruder: await listingRowsOf(t.db, intruder.id) };
}

function request(method: string, path: string, body: unknown, authorization?: string) {
  return t.app.request(path, {
    method,
    headers: { "content-type": "application/json", ...(authorization !== undefined && { authorization }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

const badHeaders: [string, string | undefined][] = [
  ["no Authorization header", undefined],
  ["an empty header", ""],
  ["Bearer without a key", "Bearer "],
  ["an unknown 64-hex key", `Bearer ${randomBytes(32).toString("hex")}`],
  ["a key that is not 64 hex", "Bearer not-a-key"],
  ["another scheme", `Basic ${Buffer.from("user:pass").toString("base64")}`],
];

describe("writes need a live API key (401)", () => {
  it.each(badHeaders)("POST, PATCH and DELETE with %s", async (_name, authorization) => {
    const before = await snapshot();
    const create = { agent_id: owner.id, title: "x", description: "y", price_wei: "1" };
    await expectError(await request("POST", "/api/listings", create, authorization), 401);
    await expectError(await request("PATCH", `/api/listings/${listing.id}`, { title: "Stolen" }, authorization), 401);
    await expectError(await request("DELETE", `/api/listings/${listing.id}`, undefined, authorization), 401);
    expect(await snapshot()).toEqual(before);
  });

  it("401 comes before validation: a bad body without a key is still 401", async () => {
    await expectError(await request("POST", "/api/listings", { junk: true }), 401);
    await expectError(await request("PATCH", "/api/listings/not-a-uuid", { junk: true }), 401);
    await expectError(await request("DELETE", "/api/listings/not-a-uuid", undefined), 401);
  });

  it("a rotated-out key is refused", async () => {
    const agent = await registerAgent(t.app);
    const own = await createListing(t.app, agent);
    const rotated = await json(await post(t.app, "/api/agents/me/rotate-key", {}, agent.key));
    const before = await listingRowsOf(t.db, agent.id);
    await expectError(await patch(t.app, `/api/listings/${own.id}`, { title: "Old key" }, agent.key), 401);
    await expectError(await del(t.app, `/api/listings/${own.id}`, agent.key), 401);
    expect(await listingRowsOf(t.db, agent.id)).toEqual(before);
    expect((await patch(t.app, `/api/listings/${own.id}`, { title: "New key" }, rotated.api_key)).status).toBe(200);
  });

  it("the key of a deactivated agent is refused", async () => {
    const agent = await registerAgent(t.app);
    const own = await createListing(t.app, agent);
    await t.db.update(agents).set({ isActive: false }).where(eq(agents.id, agent.id));
    const before = await listingRowsOf(t.db, agent.id);
    const create = { agent_id: agent.id, title: "x", description: "y", price_wei: "1" };
    await expectError(await post(t.app, "/api/listings", create, agent.key), 401);
    await expectError(await patch(t.app, `/api/listings/${own.id}`, { is_active: true }, agent.key), 401);
    await expectError(await del(t.app, `/api/listings/${own.id}`, agent.key), 401);
    expect(await listingRowsOf(t.db, agent.id)).toEqual(before);
  });
});

describe("another agent's key (403)", () => {
  it("cannot create a listing in someone else's name", async () => {
    const before = await snapshot();
    const body = await expectError(
      await post(
        t.app,
        "/api/listings",
        { agent_id: owner.id, title: "Impostor", description: "y", price_wei: "1" },
        intruder.key,
      ),
      403,
    );
    expect(body.code).toBe("forbidden");
    expect(await snapshot()).toEqual(before);
  });

  it("cannot change or deactivate someone else's listing, with any body", async () => {
    const before = await snapshot();
    for (const change of [{ title: "Stolen" }, { price_wei: "1" }, { is_active: false }, {}]) {
      await expectError(await patch(t.app, `/api/listings/${listing.id}`, change, intruder.key), 403);
    }
    await expectError(await del(t.app, `/api/listings/${listing.id}`, intruder.key), 403);
    expect(await snapshot()).toEqual(before);
    expect(await json(await get(t.app, `/api/listings/${listing.id}`))).toEqual(listing);
  });

  it("an unknown listing is 404 for everyone, before any ownership check", async () => {
    const missing = "6f1c2e9a-3b4d-4c5e-8f70-123456789abc";
    await expectError(await patch(t.app, `/api/listings/${missing}`, { title: "x" }, intruder.key), 404);
    await expectError(await del(t.app, `/api/listings/${missing}`, intruder.key), 404);
  });

  it("a paused owner still manages its own listings", async () => {
    const agent = await registerAgent(t.app);
    const own = await createListing(t.app, agent);
    expect((await patch(t.app, "/api/agents/me", { is_paused: true }, agent.key)).status).toBe(200);
    expect((await patch(t.app, `/api/listings/${own.id}`, { title: "Paused edit" }, agent.key)).status).toBe(200);
    expect((await del(t.app, `/api/listings/${own.id}`, agent.key)).status).toBe(200);
  });
});

describe("reads need no key", () => {
  it("browse and details answer without an Authorization header", async () => {
    const word = uniqueWord();
    const own = await createListing(t.app, owner, { title: `Public ${word}` });
    const page = await t.app.request(`/api/listings?keyword=${word}`);
    expect(page.status).toBe(200);
    expect((await json(page)).listings.map((item: { id: string }) => item.id)).toEqual([own.id]);
    const details = await t.app.request(`/api/listings/${own.id}`);
    expect(details.status).toBe(200);
    // Details and browse show no secret of the seller.
    const text = JSON.stringify(await json(details));
    expect(text).not.toContain(owner.key);
    expect(text).not.toMatch(/private|encrypted|api_key|metadata/i);
  });

  it("refuses a key nobody holds on reads too (forged keys open no budget), and serves no key", async () => {
    expect((await get(t.app, "/api/listings?limit=1", "0".repeat(64))).status).toBe(401);
    expect((await get(t.app, `/api/listings/${listing.id}`, "0".repeat(64))).status).toBe(401);
    expect((await get(t.app, `/api/listings/${listing.id}`)).status).toBe(200);
  });

  it("keyword input cannot reach SQL or tsquery syntax", async () => {
    for (const keyword of ["'; DROP TABLE app.listings; --", "a' & !b", "x:* | y", "\\", "%_%", "(", "a <-> b"]) {
      const response = await get(t.app, `/api/listings?keyword=${encodeURIComponent(keyword)}`);
      expect(response.status).toBe(200);
    }
    expect((await get(t.app, `/api/listings/${listing.id}`)).status).toBe(200);
  });
});
