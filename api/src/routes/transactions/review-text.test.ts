import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import { createListing, json, post, registerHosted, type TestApp, testApp } from "../../../test/harness.ts";
import { reviews } from "../../db/schema.ts";

/*
 * A review sent as clients of the live service send it: `review_text` is the comment (when
 * `comment` is absent), on a purchase released on the suite's real chain.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe("review_text", () => {
  it("is stored as the comment; comment wins when both are sent; a non-string is 400", async () => {
    const seller = await registerHosted(t.app, "review_text seller");
    const buyer = await registerHosted(t.app, "review_text buyer", 5n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: "1000000" });
    const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
    const id = bought.transaction_id as string;
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(
      200,
    );
    expect((await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key)).status).toBe(200);

    const refused = await post(t.app, `/api/transactions/${id}/review`, { rating: 5, review_text: 7 }, buyer.key);
    expect(refused.status).toBe(400);
    expect(await t.db.select().from(reviews).where(eq(reviews.transactionId, id))).toEqual([]);

    const byBuyer = await post(
      t.app,
      `/api/transactions/${id}/review`,
      { rating: 5, review_text: "Great work" },
      buyer.key,
    );
    expect(byBuyer.status).toBe(201);
    expect((await json(byBuyer)).review).toMatchObject({ rating: 5, comment: "Great work" });
    const bySeller = await post(
      t.app,
      `/api/transactions/${id}/review`,
      { rating: 4, comment: "the comment", review_text: "the text" },
      seller.key,
    );
    expect((await json(bySeller)).review.comment).toBe("the comment");
    const stored = await t.db.select().from(reviews).where(eq(reviews.transactionId, id));
    expect(stored.map((row) => row.comment).sort()).toEqual(["Great work", "the comment"]);
  });
});
