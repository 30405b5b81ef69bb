import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keeperReleases, type Market, sellerOnChain, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  post,
  registerHosted,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../../test/harness.ts";
import { proposals, transactions } from "../../db/schema.ts";
import { createKeeper } from "../../keeper/keeper.ts";

/*
 * Proposals on bounties through the API, on the suite's real chain and Postgres: agents pitch, the
 * poster picks one (assigned on chain as a claim would be), the others are declined and told;
 * concurrent acceptances; every refusal, after which nothing has changed; a bounty refunded at its
 * expiry declines what was pending.
 */
const REWARD = 3_000_000n;

let t: TestApp;
let market: Market;
let keeper: ReturnType<typeof createKeeper>;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  keeper = createKeeper({ db: t.db, config: t.config, ...t.services, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

const hosted = (usdc = 0n) => registerHosted(t.app, "proposals", usdc);

async function postBounty(poster: Agent, fields: Record<string, unknown> = {}) {
  const response = await post(
    t.app,
    "/api/listings",
    {
      agent_id: poster.id,
      title: `Bounty ${uniqueWord()}`,
      description: "Write the migration",
      price_wei: REWARD.toString(),
      listing_type: "BOUNTY",
      accepts_proposals: true,
      ...fields,
    },
    poster.key,
  );
  expect(response.status, "bounty posted").toBe(201);
  return json(response);
}

const propose = (listingId: string, agent: { key: string }, body: unknown) =>
  post(t.app, `/api/listings/${listingId}/proposals`, body, agent.key);
const act = (proposalId: string, move: "accept" | "decline" | "withdraw", agent: { key: string }) =>
  post(t.app, `/api/proposals/${proposalId}/${move}`, {}, agent.key);

async function proposed(listingId: string, agent: Agent, pitch = "I can do it", etaHours?: number) {
  const response = await propose(listingId, agent, { pitch, ...(etaHours && { eta_hours: etaHours }) });
  expect(response.status, "proposal made").toBe(201);
  return (await json(response)).proposal;
}

async function statusesOn(listingId: string) {
  const rows = await t.db
    .select({ agentId: proposals.agentId, status: proposals.status })
    .from(proposals)
    .where(eq(proposals.listingId, listingId));
  return new Map(rows.map((row) => [row.agentId, row.status]));
}

/** The kinds and payloads of an agent's notifications about proposals, oldest first. */
async function proposalNotices(agent: Agent) {
  const { notifications } = await json(await get(t.app, "/api/notifications?limit=100", agent.key));
  return (notifications as Array<{ kind: string; payload: Record<string, unknown> }>)
    .filter((notification) => notification.kind.startsWith("proposal."))
    .reverse();
}

/** Every proposal row and the bounty's transaction row, to check that a refusal changed nothing. */
async function rowsOf(listingId: string) {
  const proposalRows = await t.db
    .select()
    .from(proposals)
    .where(eq(proposals.listingId, listingId))
    .orderBy(proposals.id);
  const transactionRows = await t.db.select().from(transactions).where(eq(transactions.listingId, listingId));
  return JSON.stringify({ proposalRows, transactionRows });
}

describe("a bounty that takes proposals", () => {
  it("gets three proposals; the poster accepts one: assigned on chain, the others declined and told; delivered and auto-released", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster, { deadline_hours: 48 });
    expect(bounty).toMatchObject({ listing_type: "BOUNTY", accepts_proposals: true, funding: { state: "FUNDED" } });
    const card = await json(
      await get(t.app, `/api/listings?listing_type=BOUNTY&keyword=${bounty.title.split(" ")[1]}`),
    );
    expect(card.listings[0]).toMatchObject({ id: bounty.id, accepts_proposals: true });

    const [ann, ben, cat] = await Promise.all([hosted(), hosted(), hosted()]);
    if (!ann || !ben || !cat) throw new Error("three agents");
    // Not claimed first come.
    const claim = await post(t.app, `/api/listings/${bounty.id}/claim`, {}, ann.key);
    expect(claim.status).toBe(409);
    expect(await json(claim)).toMatchObject({ code: "bounty_takes_proposals" });

    const first = await proposed(bounty.id, ann, "Done this twice before", 12);
    const second = await proposed(bounty.id, ben, "Fast and tested", 24);
    const third = await proposed(bounty.id, cat, "Cheap and cheerful");
    expect(second).toMatchObject({
      listing_id: bounty.id,
      listing_title: bounty.title,
      reward_wei: REWARD.toString(),
      reward_usdc: "3.00",
      agent: { id: ben.id },
      poster: { id: poster.id },
      pitch: "Fast and tested",
      eta_hours: 24,
      status: "PENDING",
      transaction_id: bounty.funding.transaction_id,
    });
    expect(third.eta_hours).toBeNull();
    // One pending proposal per agent.
    const again = await propose(bounty.id, ben, { pitch: "Me again" });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ code: "proposal_exists" });

    // The poster reads all three, each agent its own.
    const all = await json(await get(t.app, `/api/listings/${bounty.id}/proposals`, poster.key));
    expect(all.proposals.map((p: { id: string }) => p.id)).toEqual([third.id, second.id, first.id]);
    const own = await json(await get(t.app, `/api/listings/${bounty.id}/proposals`, ann.key));
    expect(own.proposals.map((p: { id: string }) => p.id)).toEqual([first.id]);
    expect((await proposalNotices(poster)).map((n) => [n.kind, n.payload.proposal_id])).toEqual([
      ["proposal.received", first.id],
      ["proposal.received", second.id],
      ["proposal.received", third.id],
    ]);

    // Only the poster accepts.
    expect((await act(second.id, "accept", ben)).status).toBe(403);
    expect((await act(second.id, "accept", ann)).status).toBe(403);

    const accepted = await act(second.id, "accept", poster);
    expect(accepted.status).toBe(200);
    const answer = await json(accepted);
    expect(answer).toMatchObject({
      proposal: { id: second.id, status: "ACCEPTED" },
      claim: { success: true, transaction_id: bounty.funding.transaction_id, state: "FUNDED" },
    });
    const hoursLeft = (Date.parse(answer.claim.deadline) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(47);
    const id = bounty.funding.transaction_id as string;
    expect(await sellerOnChain(market, id)).toBe(ben.wallet);
    expect(await statusesOn(bounty.id)).toEqual(
      new Map([
        [ann.id, "DECLINED"],
        [ben.id, "ACCEPTED"],
        [cat.id, "DECLINED"],
      ]),
    );
    expect((await proposalNotices(ben)).map((n) => n.kind)).toEqual(["proposal.accepted"]);
    for (const declined of [ann, cat]) {
      const notices = await proposalNotices(declined);
      expect(notices.map((n) => n.kind)).toEqual(["proposal.declined"]);
      expect(notices[0]?.payload.reason).toMatch(/another proposal/);
    }

    // Taken: no second acceptance, no new proposal, no claim.
    const late = await act(first.id, "accept", poster);
    expect(late.status).toBe(409);
    expect(await json(late)).toMatchObject({ code: "proposal_closed" });
    const latecomer = await hosted();
    expect((await propose(bounty.id, latecomer, { pitch: "Still open?" })).status).toBe(409);

    // Delivered, and released by the keeper once the dispute window has closed.
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "migrated" }, ann.key)).status).toBe(
      403,
    );
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "migrated" }, ben.key)).status).toBe(
      200,
    );
    await market.increaseTime(t.config.disputeWindowSeconds + 60);
    expect(await keeperReleases(keeper, id)).toBe(true);
    const released = await json(await get(t.app, `/api/transactions/${id}`));
    expect(released).toMatchObject({ state: "RELEASED", seller: { id: ben.id }, buyer: { id: poster.id } });
    const [fee] = (
      await t.db.execute<{ fee_bps: number }>(
        sql`SELECT fee_bps FROM chain.escrow WHERE chain_id = ${t.config.chainId} AND uuid = ${id}`,
      )
    ).rows;
    expect(await usdcBalance(ben.wallet)).toBe(REWARD - (REWARD * BigInt(fee?.fee_bps ?? 0)) / 10_000n);
    expect(await usdcBalance(poster.wallet)).toBe(10n * USDC - REWARD);
  });

  it("two acceptances at once: exactly one wins, the escrow names its agent, the other changes nothing", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster);
    const agents = await Promise.all([hosted(), hosted(), hosted()]);
    const made = await Promise.all(agents.map((agent) => proposed(bounty.id, agent)));
    const [one, two] = made;
    if (!one || !two) throw new Error("proposals");
    const responses = await Promise.all([act(one.id, "accept", poster), act(two.id, "accept", poster)]);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = responses[0]?.status === 200 ? one : two;
    const winnerAgent = agents.find((agent) => agent.id === winner.agent.id) as Agent;
    expect(await sellerOnChain(market, bounty.funding.transaction_id)).toBe(winnerAgent.wallet);
    const statusesNow = await statusesOn(bounty.id);
    expect([...statusesNow.values()].sort()).toEqual(["ACCEPTED", "DECLINED", "DECLINED"]);
    expect(statusesNow.get(winnerAgent.id)).toBe("ACCEPTED");
    const detail = await json(await get(t.app, `/api/transactions/${bounty.funding.transaction_id}`));
    expect(detail.seller.id).toBe(winnerAgent.id);
  });

  it("is withdrawn by its agent and declined by the poster, each once, the other side told", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster);
    const [ann, ben] = await Promise.all([hosted(), hosted()]);
    if (!ann || !ben) throw new Error("agents");
    const first = await proposed(bounty.id, ann);
    const second = await proposed(bounty.id, ben);

    expect((await act(first.id, "withdraw", poster)).status).toBe(403);
    expect((await act(first.id, "decline", ann)).status).toBe(403);
    const withdrawn = await act(first.id, "withdraw", ann);
    expect(withdrawn.status).toBe(200);
    expect((await json(withdrawn)).proposal.status).toBe("WITHDRAWN");
    expect((await act(first.id, "withdraw", ann)).status).toBe(409);
    expect((await act(first.id, "accept", poster)).status).toBe(409);

    const declined = await act(second.id, "decline", poster);
    expect((await json(declined)).proposal.status).toBe("DECLINED");
    expect((await act(second.id, "decline", poster)).status).toBe(409);
    expect((await proposalNotices(ben)).map((n) => n.kind)).toEqual(["proposal.declined"]);
    expect((await proposalNotices(poster)).map((n) => n.kind)).toEqual([
      "proposal.received",
      "proposal.received",
      "proposal.withdrawn",
    ]);

    // A withdrawn proposal frees the agent's place: it may pitch again, and be accepted.
    const again = await proposed(bounty.id, ann, "Second thoughts");
    const accepted = await act(again.id, "accept", poster);
    expect(accepted.status).toBe(200);
    expect(await sellerOnChain(market, bounty.funding.transaction_id)).toBe(ann.wallet);
  });

  it("is listed for the caller: made, received, by status; one is read by its two agents only", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster);
    const [ann, outsider] = await Promise.all([hosted(), hosted()]);
    if (!ann || !outsider) throw new Error("agents");
    const made = await proposed(bounty.id, ann);

    const mine = await json(await get(t.app, "/api/proposals?role=proposer", ann.key));
    expect(mine.proposals.map((p: { id: string }) => p.id)).toEqual([made.id]);
    expect((await json(await get(t.app, "/api/proposals?role=poster", ann.key))).proposals).toEqual([]);
    const received = await json(await get(t.app, "/api/proposals?role=poster&status=PENDING", poster.key));
    expect(received.proposals.map((p: { id: string }) => p.id)).toEqual([made.id]);
    expect(
      (await json(await get(t.app, "/api/proposals?status=ACCEPTED", poster.key))).proposals.map(
        (p: { id: string }) => p.id,
      ),
    ).not.toContain(made.id);

    expect((await get(t.app, `/api/proposals/${made.id}`, ann.key)).status).toBe(200);
    expect((await json(await get(t.app, `/api/proposals/${made.id}`, poster.key))).proposal.pitch).toBe("I can do it");
    expect((await get(t.app, `/api/proposals/${made.id}`, outsider.key)).status).toBe(403);
    expect((await json(await get(t.app, `/api/listings/${bounty.id}/proposals`, outsider.key))).proposals).toEqual([]);
    // Paged newest first.
    const others = await Promise.all([hosted(), hosted()]);
    for (const other of others) await proposed(bounty.id, other);
    const page1 = await json(await get(t.app, `/api/listings/${bounty.id}/proposals?limit=2`, poster.key));
    expect(page1.proposals).toHaveLength(2);
    const page2 = await json(
      await get(t.app, `/api/listings/${bounty.id}/proposals?limit=2&cursor=${page1.next_cursor}`, poster.key),
    );
    expect(page2.proposals.map((p: { id: string }) => p.id)).toEqual([made.id]);
    expect(page2.next_cursor).toBeNull();
  });

  it("refuses bad input and the wrong listing with a clear error, changing nothing", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster);
    const ann = await hosted();
    const made = await proposed(bounty.id, ann);
    const before = await rowsOf(bounty.id);

    const bodies: Array<[string, unknown]> = [
      ["no pitch", {}],
      ["an empty pitch", { pitch: "   " }],
      ["a pitch too long", { pitch: "x".repeat(4_001) }],
      ["a pitch not a string", { pitch: 42 }],
      ["eta_hours 0", { pitch: "ok", eta_hours: 0 }],
      ["eta_hours negative", { pitch: "ok", eta_hours: -3 }],
      ["eta_hours a fraction", { pitch: "ok", eta_hours: 1.5 }],
      ["eta_hours huge", { pitch: "ok", eta_hours: 1e30 }],
      ["eta_hours a string", { pitch: "ok", eta_hours: "12" }],
      ["a body that is not an object", [1, 2]],
    ];
    const other = await hosted();
    for (const [what, body] of bodies) {
      const response = await propose(bounty.id, other, body);
      expect(response.status, what).toBe(400);
      expect((await json(response)).error, what).toBeTruthy();
    }
    // Unknown fields are ignored.
    const extra = await propose(bounty.id, other, { pitch: "ok", price_wei: "1", color: "red" });
    expect(extra.status).toBe(201);
    expect((await act((await json(extra)).proposal.id, "withdraw", other)).status).toBe(200);

    // Own bounty 400; a FIXED listing 400; a bounty taking claims 409; unknown or not a uuid 404.
    expect((await propose(bounty.id, poster, { pitch: "mine" })).status).toBe(400);
    const fixed = await createListing(t.app, poster);
    expect((await propose(fixed.id, ann, { pitch: "fixed?" })).status).toBe(400);
    const firstCome = await postBounty(poster, { accepts_proposals: false });
    const refused = await propose(firstCome.id, ann, { pitch: "claims?" });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ code: "bounty_takes_claims" });
    expect((await propose(crypto.randomUUID(), ann, { pitch: "x" })).status).toBe(404);
    expect((await propose("not-a-uuid", ann, { pitch: "x" })).status).toBe(404);
    expect((await act(crypto.randomUUID(), "accept", poster)).status).toBe(404);
    expect((await act("123", "accept", poster)).status).toBe(404);
    expect((await get(t.app, "/api/proposals?role=buyer", ann.key)).status).toBe(400);
    expect((await get(t.app, "/api/proposals?status=OPEN", ann.key)).status).toBe(400);

    // accepts_proposals is a BOUNTY's, and a boolean.
    const fixedWithProposals = await post(
      t.app,
      "/api/listings",
      { agent_id: poster.id, title: "x", description: "y", price_wei: "1000000", accepts_proposals: true },
      poster.key,
    );
    expect(fixedWithProposals.status).toBe(400);
    const notBoolean = await post(
      t.app,
      "/api/listings",
      {
        agent_id: poster.id,
        title: "x",
        description: "y",
        price_wei: "1000000",
        listing_type: "BOUNTY",
        accepts_proposals: "yes",
      },
      poster.key,
    );
    expect(notBoolean.status).toBe(400);

    const after = JSON.parse(await rowsOf(bounty.id));
    const was = JSON.parse(before);
    // The one proposal made and withdrawn above is the only change.
    expect(after.transactionRows).toEqual(was.transactionRows);
    expect(after.proposalRows.filter((row: { id: string }) => row.id === made.id)).toEqual(
      was.proposalRows.filter((row: { id: string }) => row.id === made.id),
    );
    expect(after.proposalRows).toHaveLength(2);
  });

  it("declines what is still pending when the bounty is refunded at its expiry", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster, { expires_in_hours: 1 });
    const ann = await hosted();
    const made = await proposed(bounty.id, ann);
    await market.increaseTime(2 * 3600);
    const expired = await act(made.id, "accept", poster);
    expect(expired.status).toBe(409);
    expect((await json(expired)).error).toMatch(/expired/);
    let refunded = false;
    for (let run = 0; run < 20 && !refunded; run++) {
      const report = await keeper.runOnce();
      refunded = report.refunded.includes(bounty.funding.transaction_id);
      if (!refunded && report.refunded.length === 0 && report.released.length === 0) break;
    }
    expect(refunded).toBe(true);
    expect(await usdcBalance(poster.wallet)).toBe(10n * USDC);
    expect((await json(await get(t.app, `/api/proposals/${made.id}`, ann.key))).proposal.status).toBe("DECLINED");
    const [notice] = await proposalNotices(ann);
    expect(notice).toMatchObject({ kind: "proposal.declined", payload: { reason: expect.stringMatching(/closed/) } });
  });
});

describe("proposals with the live service's fields", () => {
  it("proposal_text is the pitch, proposed_price_wei is kept and shown; another price than the reward is 409 on accept, nothing changed", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster);
    const [cheap, exact, plain] = [await hosted(), await hosted(), await hosted()];

    const asked = await propose(bounty.id, cheap, { proposal_text: "I will port it", proposed_price_wei: 2_500_000 });
    expect(asked.status).toBe(201);
    const proposal = (await json(asked)).proposal;
    expect(proposal).toMatchObject({
      pitch: "I will port it",
      proposed_price_wei: "2500000",
      proposed_price_usdc: "2.50",
      reward_wei: REWARD.toString(),
      status: "PENDING",
    });
    const atReward = (
      await json(await propose(bounty.id, exact, { pitch: "At the reward", proposed_price_wei: REWARD.toString() }))
    ).proposal;
    const without = (await json(await propose(bounty.id, plain, { pitch: "No price" }))).proposal;
    expect(without).toMatchObject({ proposed_price_wei: null, proposed_price_usdc: null });

    // Shown to the poster (every proposal, and its notification) and to the proposer.
    const all = await json(await get(t.app, `/api/listings/${bounty.id}/proposals`, poster.key));
    const byId = new Map(all.proposals.map((p: { id: string }) => [p.id, p]));
    expect(byId.get(proposal.id)).toMatchObject({ pitch: "I will port it", proposed_price_wei: "2500000" });
    expect(byId.get(atReward.id)).toMatchObject({ proposed_price_wei: REWARD.toString() });
    expect(await json(await get(t.app, `/api/proposals/${proposal.id}`, cheap.key))).toMatchObject({
      proposal: { proposed_price_wei: "2500000" },
    });
    const { notifications } = await json(await get(t.app, "/api/notifications?limit=100", poster.key));
    const received = notifications.find(
      (n: { kind: string; payload: { proposal_id: string } }) =>
        n.kind === "proposal.received" && n.payload.proposal_id === proposal.id,
    );
    expect(received.payload).toMatchObject({ proposed_price_wei: "2500000", proposed_price_usdc: "2.50" });

    // Another price than the reward: refused, nothing changed (all three still pending, no seller).
    const before = await rowsOf(bounty.id);
    const refused = await post(t.app, `/api/proposals/${proposal.id}/accept`, {}, poster.key);
    expect(refused.status).toBe(409);
    const error = await json(refused);
    expect(error).toMatchObject({
      code: "proposal_price_differs",
      proposed_price_wei: "2500000",
      reward_wei: REWARD.toString(),
    });
    expect(error.error).toMatch(/pre-funded/);
    expect(await rowsOf(bounty.id)).toBe(before);

    // At the reward: accepted as any proposal.
    const accepted = await post(t.app, `/api/proposals/${atReward.id}/accept`, {}, poster.key);
    expect(accepted.status).toBe(200);
    expect(await sellerOnChain(market, bounty.funding.transaction_id)).toBe(exact.wallet);
  });

  it("refuses a body without pitch or proposal_text, and bad prices; nothing is written", async () => {
    const poster = await hosted(10n * USDC);
    const bounty = await postBounty(poster);
    const agent = await hosted();
    for (const body of [
      {},
      { proposal_text: "" },
      { pitch: "   " },
      { proposal_text: 42 },
      { pitch: "ok", proposed_price_wei: 8.5 },
      { pitch: "ok", proposed_price_wei: -1 },
      { pitch: "ok", proposed_price_wei: 2 ** 53 },
      { pitch: "ok", proposed_price_wei: "2.5" },
    ]) {
      const response = await propose(bounty.id, agent, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect(await t.db.select().from(proposals).where(eq(proposals.listingId, bounty.id))).toEqual([]);
    // Both given: pitch wins.
    const both = await json(await propose(bounty.id, agent, { pitch: "the pitch", proposal_text: "the text" }));
    expect(both.proposal.pitch).toBe("the pitch");
  });
});
