import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
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
} from "../../../test/harness.ts";
import { refreshAgentRecords } from "../../domain/agents/agent-records.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";

/*
 * One set of reputation figures (domain/shared/reputation.ts), on the suite's real chain, indexer
 * and Postgres: an agent with no deal, a seller with a release, a ruled dispute and an open one,
 * a seller with releases and a refund, and the buyer of all of them. Every answer that shows an
 * agent's figures gives the same ones: its reputation and the chain's recount of it, its own and
 * public profiles, the directory, a listing's seller_reputation, a browse card, the all-time
 * leaderboard and the dispute desk.
 */

/** Large sales, so that the sellers are on the first page of the all-time board whatever else the suite sold. */
const PRICE = 400n * USDC;
let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

const move = async (id: string, action: string, body: unknown, key: string) => {
  const response = await post(t.app, `/api/transactions/${id}/${action}`, body, key);
  expect(response.status, action).toBe(200);
  return json(response);
};

async function bought(listingId: string, buyer: Agent): Promise<string> {
  const answer = await json(await post(t.app, `/api/listings/${listingId}/buy`, {}, buyer.key));
  expect(answer.state).toBe("FUNDED");
  return answer.transaction_id;
}

/** Delivered and released: a success. Answers what the seller received. */
async function releasedSale(listingId: string, seller: Agent, buyer: Agent): Promise<bigint> {
  const id = await bought(listingId, buyer);
  await move(id, "deliver", { deliverable: "the work" }, seller.key);
  return BigInt((await move(id, "release", {}, buyer.key)).seller_received_wei);
}

/** What the running API's notifier does every NOTIFY_INTERVAL_MS: the lists' kept figures follow. */
async function catchUp() {
  const notifier = createEscrowEventNotifier({
    db: t.db,
    chainId: t.config.chainId,
    logger: pino({ level: "silent" }),
  });
  while ((await notifier.tick()) > 0);
  await refreshAgentRecords(t.db, t.config.chainId);
}

interface Expected {
  completed: number;
  refunded: number;
  disputed: number;
  /** Successes over rated deals, as integers (no rated deal: 0 over 0). */
  successes: number;
  rated: number;
  tier: string;
  transactions: number;
  earnedWei: bigint;
}

describe("one set of reputation figures on every answer", () => {
  const word = uniqueWord("fig");
  let newcomer: Agent;
  let disputing: Agent;
  let refunding: Agent;
  let buyer: Agent;
  const listingOf = new Map<string, string>();
  let openDispute: string;
  const expected = new Map<string, Expected>();

  beforeAll(async () => {
    newcomer = await registerHosted(t.app, `newcomer ${word}`);
    disputing = await registerHosted(t.app, `disputing ${word}`);
    refunding = await registerHosted(t.app, `refunding ${word}`);
    buyer = await registerHosted(t.app, `buyer ${word}`, 10n * PRICE);
    for (const seller of [newcomer, disputing, refunding]) {
      const listing = await createListing(t.app, seller, { title: `Figures ${word}`, price_wei: PRICE.toString() });
      listingOf.set(seller.id, listing.id);
    }
    const listing = (agent: Agent) => listingOf.get(agent.id) as string;

    // A release, a dispute the arbiter rules half and half, and a dispute still open.
    let disputingEarned = await releasedSale(listing(disputing), disputing, buyer);
    const ruled = await bought(listing(disputing), buyer);
    await move(ruled, "deliver", { deliverable: "half of it" }, disputing.key);
    await move(ruled, "dispute", { reason: "half of it is missing" }, buyer.key);
    const ruling = await post(t.app, `/api/transactions/${ruled}/resolve`, { seller_bps: 5_000 }, ARBITER_API_KEY);
    expect(ruling.status).toBe(200);
    disputingEarned += BigInt((await json(ruling)).resolution.seller_received_wei);
    openDispute = await bought(listing(disputing), buyer);
    await move(openDispute, "deliver", { deliverable: "something else" }, disputing.key);
    await move(openDispute, "dispute", { reason: "not what was asked" }, buyer.key);

    // Three releases and a refund before delivery.
    let refundingEarned = 0n;
    for (let i = 0; i < 3; i++) refundingEarned += await releasedSale(listing(refunding), refunding, buyer);
    await move(await bought(listing(refunding), buyer), "refund", {}, buyer.key);
    await catchUp();

    const none = { completed: 0, refunded: 0, disputed: 0, successes: 0, rated: 0 };
    expected.set(newcomer.id, { ...none, tier: "NEWCOMER", transactions: 0, earnedWei: 0n });
    // 1 success over 3 rated deals (the release, the ruling, the open dispute).
    expected.set(disputing.id, {
      completed: 2,
      refunded: 0,
      disputed: 2,
      successes: 1,
      rated: 3,
      tier: "NEWCOMER",
      transactions: 3,
      earnedWei: disputingEarned,
    });
    // 3 successes over 4 rated deals: 75 %, RELIABLE's threshold.
    expected.set(refunding.id, {
      completed: 3,
      refunded: 1,
      disputed: 0,
      successes: 3,
      rated: 4,
      tier: "RELIABLE",
      transactions: 4,
      earnedWei: refundingEarned,
    });
    // The buyer of all seven: the same escrows, in its role.
    expected.set(buyer.id, {
      completed: 5,
      refunded: 1,
      disputed: 2,
      successes: 4,
      rated: 7,
      tier: "NEWCOMER",
      transactions: 7,
      earnedWei: 0n,
    });
  });

  const all = () => [newcomer, disputing, refunding, buyer];
  const rateOf = (e: Expected) => (e.rated === 0 ? 0 : e.successes / e.rated);
  const percentOf = (e: Expected) => (e.rated === 0 ? 0 : Math.floor((e.successes * 100) / e.rated));

  it("the reputation has the rule's figures, and the chain's logs give the same", async () => {
    for (const agent of all()) {
      const e = expected.get(agent.id) as Expected;
      const reputation = await json(await get(t.app, `/api/agents/${agent.id}/reputation`));
      expect(reputation, agent.id).toMatchObject({
        completed_transactions: e.completed,
        refunded: e.refunded,
        disputed: e.disputed,
        success_rate: rateOf(e),
        rated_deals: e.rated,
        reputation_tier: e.tier,
      });
      const verified = await json(await get(t.app, `/api/agents/${agent.id}/reputation/verify`));
      expect(verified, agent.id).toMatchObject({ matches: true, mismatches: [] });
      expect(verified.chain).toEqual(verified.indexed);
      expect(verified.chain).toMatchObject({ success_rate: rateOf(e), rated_deals: e.rated });
    }
  });

  it("the own profile, the public profile and the directory agree, transactions and earnings included", async () => {
    for (const agent of all()) {
      const e = expected.get(agent.id) as Expected;
      const me = await json(await get(t.app, "/api/agents/me", agent.key));
      expect(me.reputation, agent.id).toMatchObject({
        completed_transactions: e.completed,
        success_rate: rateOf(e),
        rated_deals: e.rated,
      });
      const profile = await json(await get(t.app, `/api/agents/${agent.id}`));
      const figures = {
        transaction_count: e.transactions,
        total_earned_wei: e.earnedWei.toString(),
        reputation_tier: e.tier,
      };
      expect(profile, agent.id).toMatchObject(figures);
      expect(me).toMatchObject(figures);
      const directory = await json(await get(t.app, `/api/agents?keyword=${word}&limit=10`));
      expect(directory.agents.find((a: { id: string }) => a.id === agent.id)).toMatchObject(figures);
    }
  });

  it("a listing's seller_reputation and its browse card give the same rate, as an integer percent", async () => {
    const { listings } = await json(await get(t.app, `/api/listings?keyword=${word}`));
    expect(listings).toHaveLength(3);
    for (const seller of [newcomer, disputing, refunding]) {
      const e = expected.get(seller.id) as Expected;
      const details = await json(await get(t.app, `/api/listings/${listingOf.get(seller.id)}`));
      expect(details.seller_reputation, seller.id).toEqual({
        completed: e.completed,
        refunded: e.refunded,
        disputed: e.disputed,
        success_rate: percentOf(e),
        rated_deals: e.rated,
      });
      expect(details.agents.transaction_count).toBe(e.transactions);
      const card = listings.find((listing: { agent: { id: string } }) => listing.agent.id === seller.id);
      expect(card.agent, seller.id).toEqual({
        id: seller.id,
        name: expect.any(String),
        reputation_tier: e.tier,
        success_rate: percentOf(e),
        rated_deals: e.rated,
      });
    }
    expect(percentOf(expected.get(disputing.id) as Expected)).toBe(33);
    expect(percentOf(expected.get(refunding.id) as Expected)).toBe(75);
  });

  it("the all-time leaderboard gives each agent its reputation's figures; no rated deal, not on it", async () => {
    const { agents } = await json(await get(t.app, "/api/leaderboard?period=all&sort=earned&limit=100"));
    const entryOf = (agent: Agent) => agents.find((entry: { agent: { id: string } }) => entry.agent.id === agent.id);
    expect(entryOf(newcomer)).toBeUndefined();
    for (const seller of [disputing, refunding]) {
      const e = expected.get(seller.id) as Expected;
      expect(entryOf(seller), seller.id).toMatchObject({
        earned_wei: e.earnedWei.toString(),
        completed: e.completed,
        success_rate: rateOf(e),
        rated_deals: e.rated,
        agent: { reputation_tier: e.tier, transaction_count: e.transactions },
      });
    }
    const week = await json(await get(t.app, "/api/leaderboard?period=week&sort=earned&limit=100"));
    const thisWeek = week.agents.find((entry: { agent: { id: string } }) => entry.agent.id === disputing.id);
    expect(thisWeek, "every deal is this week's: the same figures").toMatchObject({
      completed: 2,
      success_rate: 1 / 3,
      rated_deals: 3,
    });
  });

  it("the dispute desk shows both parties with their reputation's figures", async () => {
    const found = await json(await get(t.app, `/api/disputes/${openDispute}`, ARBITER_API_KEY));
    for (const [party, agent] of [
      [found.seller, disputing],
      [found.buyer, buyer],
    ] as const) {
      const {
        agent_id: _,
        wallet_address: __,
        ...figures
      } = await json(await get(t.app, `/api/agents/${agent.id}/reputation`));
      expect(party.reputation, agent.id).toEqual(figures);
    }
  });
});
