import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { eq, sql } from "drizzle-orm";
import { createPublicClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
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
  usdcBalance,
} from "../../../test/harness.ts";
import { offerMoves, offers } from "../../db/schema.ts";
import { offerUseCases } from "../../domain/offers/offers.ts";

/*
 * Offers on negotiable listings through the API, on the suite's real chain and Postgres: the moves in turn,
 * what each party sees and is told, and every refusal, after which nothing has changed.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerAgent>>;

const offerOn = (listingId: string, buyer: { key: string }, body: Record<string, unknown>) =>
  post(t.app, `/api/listings/${listingId}/offers`, body, buyer.key);
const act = (offerId: string, move: string, agent: { key: string }, body: Record<string, unknown> = {}) =>
  post(t.app, `/api/offers/${offerId}/${move}`, body, agent.key);

/** The kinds and payloads of an agent's notifications about offers, oldest first. */
async function offerNotices(agent: Agent) {
  const { notifications } = await json(await get(t.app, "/api/notifications?limit=100", agent.key));
  return (notifications as Array<{ kind: string; payload: Record<string, unknown> }>)
    .filter((notification) => notification.kind.startsWith("offer."))
    .reverse();
}

/** The offer's rows (offer and moves), to check that a refusal changed nothing. */
async function rowsOf(offerId: string) {
  const [offer] = await t.db.select().from(offers).where(eq(offers.id, offerId));
  const moves = await t.db.select().from(offerMoves).where(eq(offerMoves.offerId, offerId));
  return JSON.stringify({ offer, moves: moves.map((move) => move.id).sort() });
}

async function marketOf(name: string) {
  const seller = await registerAgent(t.app, `${name} seller`);
  const buyer = await registerAgent(t.app, `${name} buyer`);
  const listing = await createListing(t.app, seller, { title: `${name} work`, price_wei: "5000000" });
  return { seller, buyer, listing };
}

describe("an offer on a negotiable listing", () => {
  it("is countered in turn, twice, and accepted: each side sees every move and is told of the other's", async () => {
    const { seller, buyer, listing } = await marketOf("haggle");
    const made = await offerOn(listing.id, buyer, { price_wei: "3000000", message: "Would 3 USDC do?" });
    expect(made.status).toBe(201);
    const { offer } = await json(made);
    expect(offer).toMatchObject({
      listing_id: listing.id,
      listing_title: "haggle work",
      listing_price_wei: "5000000",
      buyer: { id: buyer.id, name: "haggle buyer" },
      seller: { id: seller.id, name: "haggle seller" },
      price_wei: "3000000",
      price_usdc: "3.00",
      deadline_hours: 72,
      status: "OPEN",
      turn: "seller",
      transaction_id: null,
      moves: [{ by: "buyer", action: "made", price_wei: "3000000", message: "Would 3 USDC do?" }],
    });
    const hours = (Date.parse(offer.expires_at) - Date.parse(offer.created_at)) / 3_600_000;
    expect(hours).toBeCloseTo(72, 3);

    const countered = await json(await act(offer.id, "counter", seller, { price_wei: "4500000", message: "4.5?" }));
    expect(countered.offer).toMatchObject({ status: "COUNTERED", turn: "buyer", price_wei: "4500000" });
    const again = await json(await act(offer.id, "counter", buyer, { price_wei: "4000000" }));
    expect(again.offer).toMatchObject({ status: "OPEN", turn: "seller", price_wei: "4000000" });
    const accepted = await json(await act(offer.id, "accept", seller, { message: "Deal" }));
    expect(accepted.offer).toMatchObject({ status: "ACCEPTED", turn: null, price_wei: "4000000" });
    const acceptedHours = (Date.parse(accepted.offer.expires_at) - Date.parse(accepted.offer.updated_at)) / 3_600_000;
    expect(acceptedHours).toBeCloseTo(24, 3);
    expect(
      accepted.offer.moves.map((move: { by: string; action: string; price_wei: string }) => [
        move.by,
        move.action,
        move.price_wei,
      ]),
    ).toEqual([
      ["buyer", "made", "3000000"],
      ["seller", "countered", "4500000"],
      ["buyer", "countered", "4000000"],
      ["seller", "accepted", "4000000"],
    ]);

    // Both parties read the same offer; the seller's listing shows it, and so do their own lists.
    expect((await json(await get(t.app, `/api/offers/${offer.id}`, buyer.key))).offer).toEqual(accepted.offer);
    expect((await json(await get(t.app, `/api/offers/${offer.id}`, seller.key))).offer).toEqual(accepted.offer);
    const sellersView = await json(await get(t.app, `/api/listings/${listing.id}/offers`, seller.key));
    expect(sellersView.offers.map((row: { id: string }) => row.id)).toEqual([offer.id]);
    const asSeller = await json(await get(t.app, "/api/offers?role=seller&status=ACCEPTED", seller.key));
    expect(asSeller.offers.map((row: { id: string }) => row.id)).toEqual([offer.id]);
    expect((await json(await get(t.app, "/api/offers?role=buyer", seller.key))).offers).toEqual([]);
    const asBuyer = await json(await get(t.app, "/api/offers?role=buyer", buyer.key));
    expect(asBuyer.offers.map((row: { id: string }) => row.id)).toEqual([offer.id]);

    expect((await offerNotices(seller)).map((notice) => [notice.kind, notice.payload.price_wei])).toEqual([
      ["offer.received", "3000000"],
      ["offer.countered", "4000000"],
    ]);
    expect((await offerNotices(buyer)).map((notice) => [notice.kind, notice.payload.price_wei])).toEqual([
      ["offer.countered", "4500000"],
      ["offer.accepted", "4000000"],
    ]);
    expect((await offerNotices(seller))[0]?.payload).toMatchObject({
      offer_id: offer.id,
      listing_id: listing.id,
      from: { id: buyer.id, name: "haggle buyer" },
      message: "Would 3 USDC do?",
    });
  });

  it("of two buyers on one listing: the seller sees both, each buyer only its own", async () => {
    const { seller, buyer, listing } = await marketOf("two buyers");
    const other = await registerAgent(t.app, "second buyer");
    const first = (await json(await offerOn(listing.id, buyer, { price_wei: "4000000" }))).offer;
    const second = (await json(await offerOn(listing.id, other, { price_wei: "4200000", deadline_hours: 24 }))).offer;
    expect(second.deadline_hours).toBe(24);
    const ids = async (agent: Agent) =>
      (await json(await get(t.app, `/api/listings/${listing.id}/offers`, agent.key))).offers.map(
        (row: { id: string }) => row.id,
      );
    expect(await ids(seller)).toEqual([second.id, first.id]);
    expect(await ids(buyer)).toEqual([first.id]);
    expect(await ids(other)).toEqual([second.id]);
    // The first is declined; the second stays open.
    expect((await json(await act(first.id, "decline", seller))).offer.status).toBe("DECLINED");
    expect((await json(await get(t.app, `/api/offers/${second.id}`, other.key))).offer.status).toBe("OPEN");
    // A page of one, then the next.
    const page = await json(await get(t.app, `/api/listings/${listing.id}/offers?limit=1`, seller.key));
    expect(page.offers.map((row: { id: string }) => row.id)).toEqual([second.id]);
    const next = await json(
      await get(t.app, `/api/listings/${listing.id}/offers?limit=1&cursor=${page.next_cursor}`, seller.key),
    );
    expect(next.offers.map((row: { id: string }) => row.id)).toEqual([first.id]);
    expect(next.next_cursor).toBeNull();
  });

  it("is withdrawn by its buyer, even accepted; a declined or withdrawn one makes room for a new one", async () => {
    const { seller, buyer, listing } = await marketOf("withdrawn");
    const first = (await json(await offerOn(listing.id, buyer, { price_wei: "4000000" }))).offer;
    expect((await offerOn(listing.id, buyer, { price_wei: "4100000" })).status).toBe(409);
    await act(first.id, "accept", seller);
    const withdrawn = await json(await act(first.id, "withdraw", buyer, { message: "Found another" }));
    expect(withdrawn.offer).toMatchObject({ status: "WITHDRAWN", turn: null, expires_at: null });
    expect((await offerNotices(seller)).map((notice) => notice.kind)).toEqual(["offer.received", "offer.withdrawn"]);
    expect((await offerOn(listing.id, buyer, { price_wei: "4100000" })).status).toBe(201);
  });

  it("expires: a move on it is refused and records the expiry; reads show it EXPIRED; the sweep tells both", async () => {
    const { seller, buyer, listing } = await marketOf("expiring");
    const late = (await json(await offerOn(listing.id, buyer, { price_wei: "4000000" }))).offer;
    await t.db.execute(sql`UPDATE app.offers SET expires_at = now() - interval '1 second' WHERE id = ${late.id}`);
    expect((await json(await get(t.app, `/api/offers/${late.id}`, buyer.key))).offer).toMatchObject({
      status: "EXPIRED",
      turn: null,
      expires_at: null,
    });
    const refused = await act(late.id, "accept", seller);
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ code: "offer_closed", status: "EXPIRED" });
    const [row] = await t.db.select().from(offers).where(eq(offers.id, late.id));
    expect(row).toMatchObject({ status: "EXPIRED", expiresAt: null });
    for (const agent of [buyer, seller]) {
      expect((await offerNotices(agent)).at(-1)).toMatchObject({
        kind: "offer.expired",
        payload: { offer_id: late.id },
      });
    }

    // An accepted offer not bought in time expires too, swept by the keeper's job.
    const accepted = (await json(await offerOn(listing.id, buyer, { price_wei: "4500000" }))).offer;
    await act(accepted.id, "accept", seller);
    await t.db.execute(sql`UPDATE app.offers SET expires_at = now() - interval '1 second' WHERE id = ${accepted.id}`);
    expect((await json(await get(t.app, "/api/offers?status=EXPIRED", buyer.key))).offers.length).toBe(2);
    expect((await json(await get(t.app, "/api/offers?status=ACCEPTED", buyer.key))).offers).toEqual([]);
    expect(await offerUseCases({ db: t.db }).expireDue()).toBeGreaterThanOrEqual(1);
    const moves = (await json(await get(t.app, `/api/offers/${accepted.id}`, seller.key))).offer.moves;
    expect(moves.at(-1)).toMatchObject({ by: null, action: "expired" });
  });

  it("takes two moves at once one after the other: an accept and a withdrawal, exactly one wins", async () => {
    for (let round = 0; round < 3; round++) {
      const { seller, buyer, listing } = await marketOf(`race ${round}`);
      const offer = (await json(await offerOn(listing.id, buyer, { price_wei: "4000000" }))).offer;
      const [accept, withdraw] = await Promise.all([act(offer.id, "accept", seller), act(offer.id, "withdraw", buyer)]);
      const statuses = [accept.status, withdraw.status].sort();
      // Withdrawn first: the accept finds it closed (409). Accepted first: the withdrawal still stands.
      expect([
        [200, 200],
        [200, 409],
      ]).toContainEqual(statuses);
      const final = (await json(await get(t.app, `/api/offers/${offer.id}`, buyer.key))).offer;
      expect(final.status).toBe("WITHDRAWN");
      expect(final.moves.filter((move: { action: string }) => move.action === "withdrawn")).toHaveLength(1);
    }
  });
});

/** The escrow's fee on `amount`, by the contract's fee_bps. */
async function feeOn(amount: bigint): Promise<bigint> {
  const stack = inject("stack");
  const bps = await createPublicClient({ transport: http(stack.rpcUrl) }).readContract({
    address: stack.deployment.contracts.AgentEscrow.address,
    abi: agentEscrowAbi,
    functionName: "feeBps",
  });
  return (amount * BigInt(bps)) / 10_000n;
}

describe("buying an accepted offer", () => {
  const buy = (listingId: string, buyer: { key: string }, body: Record<string, unknown>) =>
    post(t.app, `/api/listings/${listingId}/buy`, body, buyer.key);

  it("funds the escrow at the agreed price with the offer's deadline; the seller is paid it less the fee", async () => {
    const seller = await registerHosted(t.app, "agreed seller");
    const buyer = await registerHosted(t.app, "agreed buyer", 10n * USDC);
    const listing = await createListing(t.app, seller, { title: "Agreed work", price_wei: "5000000" });
    const offer = (await json(await offerOn(listing.id, buyer, { price_wei: "3000000", deadline_hours: 48 }))).offer;
    await act(offer.id, "counter", seller, { price_wei: "4500000" });
    await act(offer.id, "counter", buyer, { price_wei: "4000000" });
    await act(offer.id, "accept", seller);

    const bought = await json(await buy(listing.id, buyer, { offer_id: offer.id, deadline_hours: 720 }));
    expect(bought).toMatchObject({ state: "FUNDED", amount_wei: "4000000" });
    // The offer's 48 hours, not the body's 720: as a plain purchase of 48 hours bought just after
    // (deadlines are on the chain's clock).
    const plain = await createListing(t.app, seller, { price_wei: "1000000" });
    const reference = await json(await buy(plain.id, buyer, { deadline_hours: 48 }));
    expect(Math.abs(Date.parse(bought.deadline) - Date.parse(reference.deadline))).toBeLessThan(60_000);
    expect(await usdcBalance(buyer.wallet)).toBe(10n * USDC - 5_000_000n);
    const after = (await json(await get(t.app, `/api/offers/${offer.id}`, buyer.key))).offer;
    expect(after).toMatchObject({ status: "PURCHASED", transaction_id: bought.transaction_id, turn: null });
    expect(after.moves.at(-1)).toMatchObject({ by: "buyer", action: "purchased", price_wei: "4000000" });

    // Bought once: again, with or without the offer's id, is refused and funds nothing more.
    const again = await buy(listing.id, buyer, { offer_id: offer.id });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ code: "offer_not_accepted", transaction_id: bought.transaction_id });
    expect(await usdcBalance(buyer.wallet)).toBe(10n * USDC - 5_000_000n);

    const delivered = await post(
      t.app,
      `/api/transactions/${bought.transaction_id}/deliver`,
      { deliverable: "done" },
      seller.key,
    );
    expect(delivered.status).toBe(200);
    expect((await post(t.app, `/api/transactions/${bought.transaction_id}/release`, {}, buyer.key)).status).toBe(200);
    expect(await usdcBalance(seller.wallet)).toBe(4_000_000n - (await feeOn(4_000_000n)));
  });

  it("is funded once when two purchases of it race", async () => {
    const seller = await registerHosted(t.app, "raced seller");
    const buyer = await registerHosted(t.app, "raced buyer", 10n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: "5000000" });
    const offer = (await json(await offerOn(listing.id, buyer, { price_wei: "3000000" }))).offer;
    await act(offer.id, "accept", seller);
    const answers = await Promise.all([1, 2, 3].map(() => buy(listing.id, buyer, { offer_id: offer.id })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    expect(await usdcBalance(buyer.wallet)).toBe(10n * USDC - 3_000_000n);
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.transactions WHERE listing_id = ${listing.id}`,
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("refuses (409) an offer not accepted, another buyer's, another listing's, or expired; 404 for none; nothing is funded", async () => {
    const seller = await registerHosted(t.app, "strict seller");
    const buyer = await registerHosted(t.app, "strict buyer", 10n * USDC);
    const other = await registerHosted(t.app, "other buyer", 10n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: "5000000" });
    const elsewhere = await createListing(t.app, seller, { price_wei: "5000000" });
    const open = (await json(await offerOn(listing.id, buyer, { price_wei: "3000000" }))).offer;
    const notAccepted = await buy(listing.id, buyer, { offer_id: open.id });
    expect(notAccepted.status).toBe(409);
    expect(await json(notAccepted)).toMatchObject({ code: "offer_not_accepted", status: "OPEN" });
    await act(open.id, "accept", seller);
    const refusals: Array<[string, { key: string }, string, string]> = [
      [listing.id, other, open.id, "offer_mismatch"],
      [elsewhere.id, buyer, open.id, "offer_mismatch"],
    ];
    for (const [listingId, who, offerId, code] of refusals) {
      const response = await buy(listingId, who, { offer_id: offerId });
      expect(response.status).toBe(409);
      expect(await json(response)).toMatchObject({ code });
    }
    expect((await buy(listing.id, buyer, { offer_id: "6f1c2e9a-3b4d-4c5e-8f70-123456789abc" })).status).toBe(404);
    expect((await buy(listing.id, buyer, { offer_id: "not-a-uuid" })).status).toBe(400);
    await t.db.execute(sql`UPDATE app.offers SET expires_at = now() - interval '1 second' WHERE id = ${open.id}`);
    expect(await json(await buy(listing.id, buyer, { offer_id: open.id }))).toMatchObject({
      code: "offer_not_accepted",
      status: "EXPIRED",
    });
    expect(await usdcBalance(buyer.wallet)).toBe(10n * USDC);
    expect(await usdcBalance(other.wallet)).toBe(10n * USDC);
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.transactions WHERE listing_id IN (${listing.id}, ${elsewhere.id})`,
    );
    expect(rows[0]?.n).toBe(0);
  });
});

describe("refused offers and moves change nothing", () => {
  it("answers 400 for a price of 0, above 2^128 - 1 or not a whole amount of wei, and for an offer on one's own listing", async () => {
    const { seller, buyer, listing } = await marketOf("bad prices");
    for (const price_wei of ["0", (2n ** 128n).toString(), "-5", "1.5", 0, 4_000_000.5, -4, 2 ** 53, "", null, "1e6"]) {
      const response = await offerOn(listing.id, buyer, { price_wei });
      expect(response.status, String(price_wei)).toBe(400);
      expect(await json(response)).toMatchObject({ code: "invalid_request" });
    }
    for (const deadline_hours of [0, 721, 1.5, "72"]) {
      expect((await offerOn(listing.id, buyer, { price_wei: "1000000", deadline_hours })).status).toBe(400);
    }
    expect((await offerOn(listing.id, buyer, {})).status).toBe(400);
    const own = await offerOn(listing.id, seller, { price_wei: "1000000" });
    expect(own.status).toBe(400);
    expect((await json(await get(t.app, `/api/listings/${listing.id}/offers`, seller.key))).offers).toEqual([]);
    // A whole number of wei as a JSON number is an amount (the live service's clients send them).
    const numeric = await registerAgent(t.app, "numeric buyer");
    const made = await offerOn(listing.id, numeric, { price_wei: 4_000_000 });
    expect(made.status).toBe(201);
    expect(await json(made)).toMatchObject({ offer: { price_wei: "4000000" } });
    // Unknown fields are ignored.
    expect((await offerOn(listing.id, buyer, { price_wei: "1000000", currency: "USDC", extra: 1 })).status).toBe(201);
  });

  it("answers 409 on a listing that is not negotiable, a BOUNTY, an inactive listing or a paused seller", async () => {
    const seller = await registerAgent(t.app, "firm seller");
    const buyer = await registerAgent(t.app, "firm buyer");
    const firm = await createListing(t.app, seller, { is_negotiable: false });
    expect(await json(await offerOn(firm.id, buyer, { price_wei: "1000000" }))).toMatchObject({ code: "conflict" });
    const gone = await createListing(t.app, seller);
    await t.app.request(`/api/listings/${gone.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${seller.key}` },
    });
    expect((await offerOn(gone.id, buyer, { price_wei: "1000000" })).status).toBe(409);
    const open = await createListing(t.app, seller);
    await t.db.execute(sql`UPDATE app.agents SET is_paused = true WHERE id = ${seller.id}`);
    expect((await offerOn(open.id, buyer, { price_wei: "1000000" })).status).toBe(409);
    await t.db.execute(sql`UPDATE app.agents SET is_paused = false WHERE id = ${seller.id}`);
    const bounty = await t.db.execute<{ id: string }>(
      sql`UPDATE app.listings SET listing_type = 'BOUNTY' WHERE id = ${open.id} RETURNING id`,
    );
    expect(bounty.rows).toHaveLength(1);
    expect((await offerOn(open.id, buyer, { price_wei: "1000000" })).status).toBe(409);
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.offers WHERE buyer_agent_id = ${buyer.id}`,
    );
    expect(rows[0]?.n).toBe(0);
  });

  it("answers 409 out of turn or on a closed offer, 403 to others and to a seller withdrawing, 404 for no offer", async () => {
    const { seller, buyer, listing } = await marketOf("refusals");
    const stranger = await registerAgent(t.app, "stranger");
    const offer = (await json(await offerOn(listing.id, buyer, { price_wei: "4000000" }))).offer;
    const before = await rowsOf(offer.id);
    const refusals: Array<[string, Agent, Record<string, unknown>, number, string]> = [
      ["accept", buyer, {}, 409, "offer_not_your_turn"],
      ["counter", buyer, { price_wei: "4100000" }, 409, "offer_not_your_turn"],
      ["decline", buyer, {}, 409, "offer_not_your_turn"],
      ["withdraw", seller, {}, 403, "forbidden"],
      ["accept", stranger, {}, 403, "forbidden"],
      ["counter", seller, { price_wei: "0" }, 400, "invalid_request"],
      ["counter", seller, {}, 400, "invalid_request"],
    ];
    for (const [move, agent, body, status, code] of refusals) {
      const response = await act(offer.id, move, agent, body);
      expect(response.status, `${move} by ${agent.id === buyer.id ? "buyer" : "other"}`).toBe(status);
      expect(await json(response)).toMatchObject({ code });
    }
    expect((await get(t.app, `/api/offers/${offer.id}`, stranger.key)).status).toBe(403);
    expect(await rowsOf(offer.id)).toBe(before);
    expect((await act("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", "accept", seller)).status).toBe(404);
    expect((await act("not-a-uuid", "accept", seller)).status).toBe(404);
    expect((await get(t.app, "/api/offers/not-a-uuid", seller.key)).status).toBe(404);
    expect((await offerOn("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", buyer, { price_wei: "1" })).status).toBe(404);

    // Declined: closed for every move; accepted: answers only a withdrawal (or the purchase).
    await act(offer.id, "decline", seller);
    const closed = await rowsOf(offer.id);
    for (const [move, agent] of [
      ["accept", seller],
      ["counter", buyer],
      ["withdraw", buyer],
      ["decline", seller],
    ] as const) {
      const response = await act(offer.id, move, agent, { price_wei: "4200000" });
      expect(response.status).toBe(409);
      expect(await json(response)).toMatchObject({ code: "offer_closed", status: "DECLINED", turn: null });
    }
    expect(await rowsOf(offer.id)).toBe(closed);
    const accepted = (await json(await offerOn(listing.id, buyer, { price_wei: "4000000" }))).offer;
    await act(accepted.id, "accept", seller);
    for (const [move, agent] of [
      ["counter", seller],
      ["decline", buyer],
      ["accept", buyer],
    ] as const) {
      expect((await act(accepted.id, move, agent, { price_wei: "1000000" })).status).toBe(409);
    }
    // Another listing's offer is not listed under this one.
    const other = await createListing(t.app, seller);
    expect((await json(await get(t.app, `/api/listings/${other.id}/offers`, seller.key))).offers).toEqual([]);
  });

  it("answers 400 for a bad query of the caller's offers", async () => {
    const agent = await registerAgent(t.app, "querier");
    for (const query of ["role=owner", "status=LOST", "limit=0", "limit=1.5", "cursor=nonsense", "x=1&role=owner"]) {
      expect((await get(t.app, `/api/offers?${query}`, agent.key)).status, query).toBe(400);
    }
    // A key it does not know is ignored; a limit above 100 is served as 100.
    for (const query of ["x=1", "limit=101"]) {
      expect((await get(t.app, `/api/offers?${query}`, agent.key)).status, query).toBe(200);
    }
  });
});
