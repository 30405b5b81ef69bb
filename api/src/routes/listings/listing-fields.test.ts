import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  listingRowsOf,
  patch,
  post,
  registerHosted,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";

/*
 * Listings written with the live service's fields, on the suite's real chain and Postgres:
 * `categories` (the first known one becomes the category) and amounts sent as JSON numbers
 * (safe non-negative integers only), in listing, transaction and withdrawal bodies.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;
const listingBody = (agent: Agent, fields: Record<string, unknown>) => ({
  agent_id: agent.id,
  title: "Numbers and categories",
  description: "Work",
  price_wei: "1500000",
  ...fields,
});

describe("categories", () => {
  it("the first known entry becomes the category; none known is the default; category wins", async () => {
    const seller = await registerHosted(t.app, "categories");
    expect(await createListing(t.app, seller, { categories: ["coding"] })).toMatchObject({ category: "coding" });
    expect(await createListing(t.app, seller, { categories: ["blockchain", "Research", "coding"] })).toMatchObject({
      category: "research",
    });
    expect(await createListing(t.app, seller, { categories: ["blockchain"] })).toMatchObject({ category: "other" });
    expect(await createListing(t.app, seller, { categories: [] })).toMatchObject({ category: "other" });
    expect(await createListing(t.app, seller, { category: "design", categories: ["coding"] })).toMatchObject({
      category: "design",
    });
    const listing = await createListing(t.app, seller, { category: "writing" });
    const changed = await patch(t.app, `/api/listings/${listing.id}`, { categories: ["data"] }, seller.key);
    expect(await json(changed)).toMatchObject({ category: "data" });
    const unknown = await patch(t.app, `/api/listings/${listing.id}`, { categories: ["nothing known"] }, seller.key);
    expect(await json(unknown)).toMatchObject({ category: "data" });
  });

  it("entries that are not strings are 400 and nothing is written", async () => {
    const seller = await registerHosted(t.app, "bad categories");
    const listing = await createListing(t.app, seller);
    const before = await listingRowsOf(t.db, seller.id);
    for (const categories of [[1], "coding", [null], [{ name: "coding" }]]) {
      const created = await post(t.app, "/api/listings", listingBody(seller, { categories }), seller.key);
      expect(created.status, JSON.stringify(categories)).toBe(400);
      const changed = await patch(t.app, `/api/listings/${listing.id}`, { categories }, seller.key);
      expect(changed.status, JSON.stringify(categories)).toBe(400);
    }
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });
});

describe("numeric amounts", () => {
  it("price_wei as a safe integer is its decimal string, in create and update", async () => {
    const seller = await registerHosted(t.app, "numeric price");
    const created = await post(t.app, "/api/listings", listingBody(seller, { price_wei: 8_500_000 }), seller.key);
    expect(created.status).toBe(201);
    const listing = await json(created);
    expect(listing).toMatchObject({ price_wei: "8500000", price_usdc: "8.50" });
    const changed = await patch(t.app, `/api/listings/${listing.id}`, { price_wei: 9_000_000 }, seller.key);
    expect(await json(changed)).toMatchObject({ price_wei: "9000000" });
    expect(await json(await get(t.app, `/api/listings/${listing.id}`))).toMatchObject({ price_wei: "9000000" });
  });

  it("a fraction, a negative, an unsafe number or zero is 400 and nothing is written", async () => {
    const seller = await registerHosted(t.app, "bad numbers");
    const listing = await createListing(t.app, seller);
    const before = await listingRowsOf(t.db, seller.id);
    for (const price_wei of [8.5, -1, 2 ** 53, 1e21, 0, Number.NaN, true]) {
      const created = await post(t.app, "/api/listings", listingBody(seller, { price_wei }), seller.key);
      expect(created.status, String(price_wei)).toBe(400);
      expect((await json(created)).code).toBe("invalid_request");
      const changed = await patch(t.app, `/api/listings/${listing.id}`, { price_wei }, seller.key);
      expect(changed.status, String(price_wei)).toBe(400);
    }
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("amount_wei as a number funds a direct transaction; a fraction is 400", async () => {
    const buyer = await registerHosted(t.app, "numeric buyer", 5n * USDC);
    const seller = await registerHosted(t.app, "numeric seller");
    const base = { buyer_agent_id: buyer.id, seller_agent_id: seller.id, description: "by number" };
    const refused = await post(t.app, "/api/transactions", { ...base, amount_wei: 1.5 }, buyer.key);
    expect(refused.status).toBe(400);
    const created = await post(t.app, "/api/transactions", { ...base, amount_wei: 1_000_000 }, buyer.key);
    expect(created.status).toBe(201);
    const answer = await json(created);
    expect(answer).toMatchObject({ state: "FUNDED", amount_wei: "1000000" });
  });
});
