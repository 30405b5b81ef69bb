import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  post,
  registerHosted,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../test/harness.ts";
import { createEscrowEventNotifier } from "./escrow-event-notifier.ts";

/*
 * Indexed escrow events become notifications, on the suite's real chain, indexer and Postgres:
 * hosted agents buy, deliver, release, dispute, refund and claim through the API (the relayer pays
 * their gas, no dev account is used), then the notifier reads the indexed events. Each party hears
 * what concerns it, exactly once, however many notifiers read, and the public events reach the feed.
 */

const PRICE = 2_000_000n;
let t: TestApp;
let notifier: ReturnType<typeof createEscrowEventNotifier>;
beforeAll(async () => {
  t = await testApp();
  notifier = createEscrowEventNotifier({ db: t.db, chainId: t.config.chainId, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

/** This file's agents and transactions: other files write notifications at the same time. */
const mine = { agents: [] as string[], transactions: [] as string[] };
async function hosted(name: string, usdc?: bigint): Promise<Agent> {
  const agent = await registerHosted(t.app, name, usdc);
  mine.agents.push(agent.id);
  return agent;
}

/** Reads every indexed event (the routes answered after the indexer had their blocks). */
async function readAll() {
  while ((await notifier.tick()) > 0);
}

async function notificationsOf(agent: Agent) {
  const body = await json(await get(t.app, "/api/notifications?limit=100", agent.key));
  return body.notifications as Array<{ kind: string; payload: Record<string, unknown> }>;
}

/** The kinds an agent was notified of about one transaction, oldest first. */
async function kindsAbout(agent: Agent, transactionId: string) {
  return (await notificationsOf(agent))
    .filter((n) => n.payload.transaction_id === transactionId)
    .map((n) => n.kind)
    .reverse();
}

async function buy(seller: Agent, buyer: Agent) {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString(), title: `Work ${uniqueWord()}` });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state).toBe("FUNDED");
  mine.transactions.push(bought.transaction_id);
  return { id: bought.transaction_id as string, listing };
}

const move = async (id: string, action: string, key: string, body: unknown = {}) =>
  expect((await post(t.app, `/api/transactions/${id}/${action}`, body, key)).status).toBe(200);

async function feedEventsAbout(transactionId: string) {
  const items = (await json(await get(t.app, "/api/feed?limit=100"))).items as Array<{
    kind: string;
    event?: string;
    payload?: Record<string, unknown>;
  }>;
  return items.filter((item) => item.kind === "event" && item.payload?.transaction_id === transactionId);
}

describe("notifications from indexed escrow events", () => {
  it("a purchase delivered and released: each party hears its part, the feed shows it", async () => {
    const seller = await hosted("notified seller");
    const buyer = await hosted("notified buyer", 10n * USDC);
    const { id, listing } = await buy(seller, buyer);
    const url = "https://example.com/done.zip";
    await move(id, "deliver", seller.key, { deliverable: "done", deliverable_url: url });
    await move(id, "release", buyer.key);
    await readAll();

    expect(await kindsAbout(buyer, id)).toEqual(["payment.funded", "transaction.delivered", "payment.released"]);
    expect(await kindsAbout(seller, id)).toEqual(["listing.purchased", "payment.released"]);
    const purchased = (await notificationsOf(seller)).find((n) => n.kind === "listing.purchased");
    expect(purchased?.payload).toEqual({
      transaction_id: id,
      listing_id: listing.id,
      listing_title: listing.title,
      escrow_id: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      counterparty: { id: buyer.id, name: "notified buyer" },
      amount_wei: PRICE.toString(),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      block_number: expect.stringMatching(/^\d+$/),
    });

    // The buyer hears what was delivered: the link, and the hash the escrow holds.
    const delivered = (await notificationsOf(buyer)).find(
      (n) => n.kind === "transaction.delivered" && n.payload.transaction_id === id,
    );
    const deliverable = await json(await get(t.app, `/api/transactions/${id}/deliverable`, buyer.key));
    expect(delivered?.payload).toMatchObject({ deliverable_url: url, deliverable_hash: deliverable.deliverable_hash });

    const feed = await feedEventsAbout(id);
    expect(feed.map((item) => item.event).sort()).toEqual(["listing.purchased", "payment.released"]);
    expect(feed[0]?.payload).toMatchObject({
      listing: { id: listing.id, title: listing.title },
      buyer: { id: buyer.id, name: "notified buyer" },
      seller: { id: seller.id, name: "notified seller" },
    });
  });

  it("a dispute tells the other party; a ruling tells both; a refund tells both", async () => {
    const seller = await hosted("disputed seller");
    const buyer = await hosted("disputing buyer", 10n * USDC);
    const disputed = await buy(seller, buyer);
    await move(disputed.id, "deliver", seller.key, { deliverable: "half done" });
    await move(disputed.id, "dispute", buyer.key, { reason: "incomplete" });
    await move(disputed.id, "resolve", ARBITER_API_KEY, { seller_bps: 5_000 });
    const refunded = await buy(seller, buyer);
    await move(refunded.id, "refund", seller.key);
    await readAll();

    expect(await kindsAbout(seller, disputed.id)).toEqual([
      "listing.purchased",
      "transaction.disputed",
      "transaction.resolved",
    ]);
    expect(await kindsAbout(buyer, disputed.id)).toEqual([
      "payment.funded",
      "transaction.delivered",
      "transaction.resolved",
    ]);
    const ruling = (await notificationsOf(buyer)).find(
      (n) => n.kind === "transaction.resolved" && n.payload.transaction_id === disputed.id,
    );
    expect(ruling?.payload.seller_bps).toBe(5_000);
    expect(await kindsAbout(seller, refunded.id)).toEqual(["listing.purchased", "payment.refunded"]);
    expect(await kindsAbout(buyer, refunded.id)).toEqual(["payment.funded", "payment.refunded"]);
  });

  it("a bounty funded and claimed: the poster hears both; the feed shows the claim only", async () => {
    const poster = await hosted("poster", 10n * USDC);
    const hunter = await hosted("hunter");
    const created = await post(
      t.app,
      "/api/listings",
      {
        agent_id: poster.id,
        title: `Bounty ${uniqueWord()}`,
        description: "Find the bug",
        price_wei: PRICE.toString(),
        listing_type: "BOUNTY",
      },
      poster.key,
    );
    expect(created.status).toBe(201);
    const bounty = await json(created);
    const claimed = await post(t.app, `/api/listings/${bounty.id}/claim`, {}, hunter.key);
    expect(claimed.status).toBe(200);
    const id = (await json(claimed)).transaction_id as string;
    mine.transactions.push(id);
    await readAll();

    expect(await kindsAbout(poster, id)).toEqual(["payment.funded", "listing.claimed"]);
    const claim = (await notificationsOf(poster)).find((n) => n.kind === "listing.claimed");
    expect(claim?.payload.counterparty).toEqual({ id: hunter.id, name: "hunter" });
    expect(await kindsAbout(hunter, id)).toEqual([]);
    expect((await feedEventsAbout(id)).map((item) => item.event)).toEqual(["listing.claimed"]);
  });

  it("notifies exactly once: notifiers reading at once, and a cursor reset, add nothing", async () => {
    const seller = await hosted("once seller");
    const buyer = await hosted("once buyer", 10n * USDC);
    const { id } = await buy(seller, buyer);
    const others = Array.from({ length: 3 }, () =>
      createEscrowEventNotifier({ db: t.db, chainId: t.config.chainId, logger: pino({ level: "silent" }) }),
    );
    await Promise.all([notifier.tick(), ...others.map((other) => other.tick())]);
    await readAll();
    expect(await kindsAbout(buyer, id)).toEqual(["payment.funded"]);

    const count = async () =>
      (
        await t.db.execute<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM app.notifications
              WHERE agent_id::text = ANY(${sql.param(mine.agents)}::text[])`,
        )
      ).rows[0]?.n;
    const feedCount = async () =>
      (
        await t.db.execute<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM app.feed_events
              WHERE payload->>'transaction_id' = ANY(${sql.param(mine.transactions)}::text[])`,
        )
      ).rows[0]?.n;
    const [before, feedBefore] = [await count(), await feedCount()];
    // A cursor past the last event (a restarted local chain) starts over; nothing is stored twice.
    await t.db.execute(
      sql`UPDATE app.read_cursors SET position = 'z' WHERE name = ${`escrow_events:${t.config.chainId}`}`,
    );
    await readAll();
    expect(await count()).toBe(before);
    expect(await feedCount()).toBe(feedBefore);
    expect(await kindsAbout(seller, id)).toEqual(["listing.purchased"]);
  });
});
