import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import { createListing, get, json, post, registerHosted, type TestApp, testApp } from "../../../test/harness.ts";

/*
 * The live service's paths of a transaction's records, on the suite's real chain (hosted agents:
 * the relayer pays): GET /api/transactions/{id}/evidence (the parties read the evidence, as their
 * timeline shows it) and GET /api/transactions/{id}/review (its reviews, public as an agent's are).
 * And POST /api/transactions answering `id` beside `transaction_id`.
 */

const PRICE = 2_000_000n;
const UNKNOWN = "6f1c2e9a-3b4d-4c5e-8f70-123456789abc";
let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

/** A purchase of a new listing of `seller` by `buyer`, funded and delivered. */
async function delivered(seller: Agent, buyer: Agent): Promise<string> {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state).toBe("FUNDED");
  const id = bought.transaction_id as string;
  expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(200);
  return id;
}

describe("GET /api/transactions/{id}/evidence", () => {
  it("the parties read every item of both sides, oldest first; an empty list before any", async () => {
    const seller = await registerHosted(t.app, "evidence seller");
    const buyer = await registerHosted(t.app, "evidence buyer", 5n * USDC);
    const id = await delivered(seller, buyer);
    const read = (key?: string) => get(t.app, `/api/transactions/${id}/evidence`, key);
    const none = await read(buyer.key);
    expect(none.status).toBe(200);
    expect(await json(none)).toEqual({ transaction_id: id, state: "DELIVERED", evidence: [] });

    expect((await post(t.app, `/api/transactions/${id}/dispute`, { reason: "Half of it" }, buyer.key)).status).toBe(
      200,
    );
    const add = (key: string, body: unknown) => post(t.app, `/api/transactions/${id}/evidence`, body, key);
    expect((await add(buyer.key, { content: "Page 2 is missing", url: "https://example.com/p2.png" })).status).toBe(
      201,
    );
    expect((await add(seller.key, { content: "Page 2 was not ordered" })).status).toBe(201);

    const bySeller = await read(seller.key);
    expect(bySeller.status).toBe(200);
    const body = await json(bySeller);
    expect(body).toMatchObject({ transaction_id: id, state: "DISPUTED" });
    expect(body.evidence).toEqual([
      expect.objectContaining({
        submitted_by: "buyer",
        agent_id: buyer.id,
        content: "Page 2 is missing",
        url: "https://example.com/p2.png",
      }),
      expect.objectContaining({
        submitted_by: "seller",
        agent_id: seller.id,
        content: "Page 2 was not ordered",
        url: null,
      }),
    ]);
    expect(await json(await read(buyer.key))).toEqual(body);
    // The same items the timeline shows.
    const timeline = await json(await get(t.app, `/api/transactions/${id}/timeline`, buyer.key));
    const shown = timeline.events.filter((event: { kind: string }) => event.kind === "EVIDENCE");
    expect(shown.map((event: { details: { evidence_id: string } }) => event.details.evidence_id).sort()).toEqual(
      body.evidence.map((item: { id: string }) => item.id).sort(),
    );

    const outsider = await registerHosted(t.app, "evidence outsider");
    expect((await read(outsider.key)).status).toBe(403);
    expect((await read()).status).toBe(401);
  });

  it("404 for a transaction nobody has, or no uuid", async () => {
    const agent = await registerHosted(t.app, "evidence asker");
    expect((await get(t.app, `/api/transactions/${UNKNOWN}/evidence`, agent.key)).status).toBe(404);
    expect((await get(t.app, "/api/transactions/nope/evidence", agent.key)).status).toBe(404);
  });
});

describe("GET /api/transactions/{id}/review", () => {
  it("answers the transaction's reviews to anyone: none before, each party's after", async () => {
    const seller = await registerHosted(t.app, "reviewed by id");
    const buyer = await registerHosted(t.app, "reviewer by id", 5n * USDC);
    const id = await delivered(seller, buyer);
    const read = () => get(t.app, `/api/transactions/${id}/review`);
    const before = await read();
    expect(before.status).toBe(200);
    expect(await json(before)).toEqual({ transaction_id: id, reviews: [] });

    expect((await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key)).status).toBe(200);
    const given = await post(t.app, `/api/transactions/${id}/review`, { rating: 5, comment: "Great" }, buyer.key);
    expect(given.status).toBe(201);
    const { review } = await json(given);
    const once = await json(await read());
    expect(once).toEqual({ transaction_id: id, reviews: [review] });
    expect(once.reviews[0]).toMatchObject({ rating: 5, comment: "Great", reviewee: { id: seller.id } });

    expect((await post(t.app, `/api/transactions/${id}/review`, { rating: 4 }, seller.key)).status).toBe(201);
    const both = (await json(await read())).reviews;
    expect(both.map((r: { reviewer: { id: string } }) => r.reviewer.id)).toEqual([seller.id, buyer.id]);
  });

  it("404 for a transaction nobody has, or no uuid", async () => {
    expect((await get(t.app, `/api/transactions/${UNKNOWN}/review`)).status).toBe(404);
    expect((await get(t.app, "/api/transactions/nope/review")).status).toBe(404);
  });
});

describe("POST /api/transactions", () => {
  it("answers id, the same as transaction_id (the live service's name)", async () => {
    const seller = await registerHosted(t.app, "direct seller");
    const buyer = await registerHosted(t.app, "direct buyer", 5n * USDC);
    const response = await post(
      t.app,
      "/api/transactions",
      { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: "1000000" },
      buyer.key,
    );
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({ state: "FUNDED", id: body.transaction_id });
    expect((await json(await get(t.app, `/api/transactions/${body.id}`))).id).toBe(body.id);
  });
});
