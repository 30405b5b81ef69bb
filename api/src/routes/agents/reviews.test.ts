import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  post,
  registerAgent,
  registerHosted,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { MAX_REVIEW_COMMENT } from "../../schemas/reviews.ts";

/*
 * Reviews on the suite's real chain and Postgres: a purchase is bought, delivered and released by
 * hosted agents (the relayer pays; no dev account is used), then each party reviews the other once.
 */

const PRICE = 2_000_000n;
let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

/** A purchase of a new listing of `seller`, funded and, unless told otherwise, delivered and released. */
async function purchase(seller: Agent, buyer: Agent, until: "FUNDED" | "RELEASED" = "RELEASED") {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state).toBe("FUNDED");
  const id = bought.transaction_id as string;
  if (until === "RELEASED") {
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(
      200,
    );
    expect((await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key)).status).toBe(200);
  }
  return { id, listingId: listing.id as string };
}

async function reviewCount(): Promise<number> {
  const { rows } = await t.db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM app.reviews`);
  return rows[0]?.n ?? 0;
}

const review = (id: string, body: unknown, key?: string) => post(t.app, `/api/transactions/${id}/review`, body, key);

describe("reviews", () => {
  it("each party reviews the other once; the buyer's rating counts in the listing's avg_rating", async () => {
    const seller = await registerHosted(t.app, "reviewed seller");
    const buyer = await registerHosted(t.app, "reviewing buyer", 10n * USDC);
    const first = await purchase(seller, buyer);
    const second = await purchase(seller, buyer);

    const byBuyer = await review(first.id, { rating: 5, comment: "Fast and thorough" }, buyer.key);
    expect(byBuyer.status).toBe(201);
    expect(await json(byBuyer)).toMatchObject({
      review: {
        transaction_id: first.id,
        listing_id: first.listingId,
        reviewer: { id: buyer.id, name: "reviewing buyer" },
        reviewee: { id: seller.id, name: "reviewed seller" },
        rating: 5,
        comment: "Fast and thorough",
      },
    });
    expect((await review(first.id, { rating: 4 }, seller.key)).status).toBe(201);
    const notified = (await json(await get(t.app, "/api/notifications", seller.key))).notifications;
    expect(notified).toContainEqual(
      expect.objectContaining({
        kind: "review.received",
        payload: expect.objectContaining({
          transaction_id: first.id,
          rating: 5,
          reviewer: { id: buyer.id, name: "reviewing buyer" },
        }),
      }),
    );
    expect((await review(second.id, { rating: 2 }, buyer.key)).status).toBe(201);

    // Once per party: the second try is 409 and changes nothing.
    const again = await review(first.id, { rating: 1 }, buyer.key);
    expect(again.status).toBe(409);
    expect((await json(await get(t.app, `/api/listings/${first.listingId}`))).avg_rating).toBe("5.00");
    expect((await json(await get(t.app, `/api/listings/${second.listingId}`))).avg_rating).toBe("2.00");

    const received = await json(await get(t.app, `/api/agents/${seller.id}/reviews`));
    expect(received).toMatchObject({ agent_id: seller.id, avg_rating: "3.50", review_count: 2, next_cursor: null });
    expect(received.reviews.map((r: { rating: number }) => r.rating)).toEqual([2, 5]);
    const ofBuyer = await json(await get(t.app, `/api/agents/${buyer.id}/reviews`));
    expect(ofBuyer).toMatchObject({ avg_rating: "4.00", review_count: 1 });
    expect(ofBuyer.reviews[0]).toMatchObject({ reviewer: { id: seller.id }, rating: 4, listing_id: first.listingId });

    const page = await json(await get(t.app, `/api/agents/${seller.id}/reviews?limit=1`));
    expect(page.reviews).toHaveLength(1);
    const next = await json(await get(t.app, `/api/agents/${seller.id}/reviews?limit=1&cursor=${page.next_cursor}`));
    expect(next.reviews.map((r: { rating: number }) => r.rating)).toEqual([5]);
    expect(next.next_cursor).toBeNull();
  });

  it("refuses: not RELEASED 409, not a party 403, unknown 404, bad bodies 400, no key 401; stores nothing", async () => {
    const seller = await registerHosted(t.app, "seller");
    const buyer = await registerHosted(t.app, "buyer", 10n * USDC);
    const released = await purchase(seller, buyer);
    const funded = await purchase(seller, buyer, "FUNDED");
    const stranger = await registerAgent(t.app, "stranger");
    const before = await reviewCount();

    const notYet = await review(funded.id, { rating: 5 }, buyer.key);
    expect(notYet.status).toBe(409);
    expect(await json(notYet)).toMatchObject({ state: "FUNDED" });
    expect((await review(released.id, { rating: 5 }, stranger.key)).status).toBe(403);
    // A body agent_id (clients of the live service send one) must name the caller's own agent.
    for (const other of [seller.id, stranger.id, "6f1c2e9a-3b4d-4c5e-8f70-123456789abc"]) {
      const foreign = await review(released.id, { rating: 1, agent_id: other }, buyer.key);
      expect(foreign.status).toBe(403);
      expect(await json(foreign)).toMatchObject({ code: "forbidden", error: expect.stringMatching(/agent_id/) });
    }
    expect((await review("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", { rating: 5 }, buyer.key)).status).toBe(404);
    expect((await review("not-a-uuid", { rating: 5 }, buyer.key)).status).toBe(404);
    for (const body of [
      {},
      { rating: 0 },
      { rating: 6 },
      { rating: 4.5 },
      { rating: "5" },
      { rating: -1 },
      { rating: 1e300 },
      { rating: 5, comment: "x".repeat(MAX_REVIEW_COMMENT + 1) },
      { rating: 5, comment: 7 },
      { rating: 5, agent_id: "buyer" },
    ]) {
      const response = await review(released.id, body, buyer.key);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    expect((await review(released.id, { rating: 5 })).status).toBe(401);
    expect(await reviewCount()).toBe(before);
    expect((await json(await get(t.app, `/api/listings/${released.listingId}`))).avg_rating).toBe("0.00");

    expect((await get(t.app, "/api/agents/6f1c2e9a-3b4d-4c5e-8f70-123456789abc/reviews")).status).toBe(404);
    expect((await get(t.app, `/api/agents/${seller.id}/reviews?cursor=nonsense`)).status).toBe(400);
    expect((await get(t.app, `/api/agents/${seller.id}/reviews?limit=0`)).status).toBe(400);
  });

  it("two reviews at once by the same party: exactly one is stored and counted", async () => {
    const seller = await registerHosted(t.app, "seller");
    const buyer = await registerHosted(t.app, "buyer", 10n * USDC);
    const { id, listingId } = await purchase(seller, buyer);
    const statuses = (await Promise.all([1, 2, 3, 4, 5].map((rating) => review(id, { rating }, buyer.key)))).map(
      (response) => response.status,
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(4);
    const listing = await t.db.execute<{ rating_count: number }>(
      sql`SELECT rating_count FROM app.listings WHERE id = ${listingId}`,
    );
    expect(listing.rows[0]?.rating_count).toBe(1);
  });
});
