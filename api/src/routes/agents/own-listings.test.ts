import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createListing,
  del,
  get,
  json,
  listingRowsOf,
  newWallet,
  patch,
  post,
  registerAgent,
  sessionOf,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";

/*
 * A seller's own listings in every state (GET /api/agents/me/listings) and the states a seller
 * moves them through: paused (PATCH is_active false) may be listed again; closed (DELETE) may not.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ registrationsPerHour: 1_000 });
});
afterAll(() => t.close());

/** Every page of the caller's own listings: [id, state] in order. */
async function ownListings(key: string, limit = 100): Promise<[string, string][]> {
  const seen: [string, string][] = [];
  let cursor: string | null = null;
  do {
    const response = await get(
      t.app,
      `/api/agents/me/listings?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
      key,
    );
    expect(response.status).toBe(200);
    const body = await json(response);
    for (const listing of body.listings) seen.push([listing.id, listing.state]);
    cursor = body.next_cursor;
  } while (cursor);
  return seen;
}

describe("GET /api/agents/me/listings", () => {
  it("lists the caller's listings in every state, newest first, and no one else's", async () => {
    const seller = await registerAgent(t.app, "own lister");
    const other = await registerAgent(t.app, "someone else");
    const first = await createListing(t.app, seller, { title: "First", price_wei: "2500000" });
    const paused = await createListing(t.app, seller, { title: "Paused" });
    const closed = await createListing(t.app, seller, { title: "Closed" });
    await createListing(t.app, other, { title: "Not mine" });
    expect((await patch(t.app, `/api/listings/${paused.id}`, { is_active: false }, seller.key)).status).toBe(200);
    expect((await del(t.app, `/api/listings/${closed.id}`, seller.key)).status).toBe(200);

    expect(await ownListings(seller.key)).toEqual([
      [closed.id, "closed"],
      [paused.id, "paused"],
      [first.id, "active"],
    ]);
    // One at a time, the pages hold the same.
    expect(await ownListings(seller.key, 1)).toEqual(await ownListings(seller.key));
    const [newest] = (await json(await get(t.app, "/api/agents/me/listings?limit=3", seller.key))).listings;
    expect(newest).toMatchObject({
      id: closed.id,
      title: "Closed",
      listing_type: "FIXED",
      state: "closed",
      is_active: false,
      price_wei: "1500000",
      price_usdc: "1.50",
    });
    expect(await ownListings(other.key)).toHaveLength(1);
  });

  it("answers an owner's session acting as its agent, and refuses a caller without a key", async () => {
    const wallet = newWallet();
    const session = await sessionOf(t.app, wallet, t.config.chainId);
    const created = await post(t.app, "/api/owner/agents", { name: "dashboard seller", bio: "owned" }, session);
    expect(created.status).toBe(201);
    const agent = await json(created);
    const listing = await createListing(t.app, { id: agent.agent.id, key: agent.api_key });
    const response = await t.app.request("/api/agents/me/listings", {
      headers: { authorization: `Bearer ${session}`, "X-Agent-Id": agent.agent.id },
    });
    expect(response.status).toBe(200);
    expect((await json(response)).listings.map((row: { id: string }) => row.id)).toEqual([listing.id]);
    expect((await get(t.app, "/api/agents/me/listings")).status).toBe(401);
  });
});

describe("a listing's state", () => {
  it("paused is listed again; closed is not (409 listing_closed, nothing changes)", async () => {
    const seller = await registerAgent(t.app, "state mover");
    const listing = await createListing(t.app, seller);
    expect((await json(await get(t.app, `/api/listings/${listing.id}`))).state).toBe("active");

    const paused = await patch(t.app, `/api/listings/${listing.id}`, { is_active: false }, seller.key);
    expect(await json(paused)).toMatchObject({ state: "paused", is_active: false });
    const resumed = await patch(t.app, `/api/listings/${listing.id}`, { is_active: true }, seller.key);
    expect(await json(resumed)).toMatchObject({ state: "active", is_active: true });

    const closed = await del(t.app, `/api/listings/${listing.id}`, seller.key);
    expect(await json(closed)).toMatchObject({ state: "closed", is_active: false });
    const before = await listingRowsOf(t.db, seller.id);
    const relisted = await patch(
      t.app,
      `/api/listings/${listing.id}`,
      { is_active: true, price_wei: "9000000" },
      seller.key,
    );
    expect(relisted.status).toBe(409);
    expect(await json(relisted)).toMatchObject({ code: "listing_closed", state: "closed" });
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
    // Deactivating again is harmless; the public page says closed.
    expect((await del(t.app, `/api/listings/${listing.id}`, seller.key)).status).toBe(200);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
    expect((await json(await get(t.app, `/api/listings/${listing.id}`))).state).toBe("closed");
  });
});
