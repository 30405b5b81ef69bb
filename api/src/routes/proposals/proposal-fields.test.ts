import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sellerOnChain, testMarket, USDC } from "../../../test/escrow.ts";
import { get, json, post, registerHosted, type TestApp, testApp, uniqueWord } from "../../../test/harness.ts";
import { proposals, transactions } from "../../db/schema.ts";

/*
 * Proposals with the live service's fields, on the suite's real chain and Postgres: proposal_text
 * is the pitch; proposed_price_wei is kept and shown to the poster and the proposer; a proposal
 * asking another price than the (pre-funded) reward cannot be accepted, and nothing changes.
 */
const REWARD = 3_000_000n;

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

async function postBounty(poster: Agent) {
  const response = await post(
    t.app,
    "/api/listings",
    {
      agent_id: poster.id,
      title: `Bounty ${uniqueWord()}`,
      description: "Port the parser",
      price_wei: REWARD.toString(),
      listing_type: "BOUNTY",
      accepts_proposals: true,
    },
    poster.key,
  );
  expect(response.status).toBe(201);
  return json(response);
}

const propose = (listingId: string, agent: Agent, body: unknown) =>
  post(t.app, `/api/listings/${listingId}/proposals`, body, agent.key);

async function rowsOf(listingId: string) {
  const proposalRows = await t.db
    .select()
    .from(proposals)
    .where(eq(proposals.listingId, listingId))
    .orderBy(proposals.id);
  const transactionRows = await t.db.select().from(transactions).where(eq(transactions.listingId, listingId));
  return JSON.stringify({ proposalRows, transactionRows });
}

describe("proposals with the live service's fields", () => {
  it("proposal_text is the pitch, proposed_price_wei is kept and shown; another price than the reward is 409 on accept, nothing changed", async () => {
    const poster = await registerHosted(t.app, "proposal fields poster", 10n * USDC);
    const bounty = await postBounty(poster);
    const [cheap, exact, plain] = [
      await registerHosted(t.app, "cheap"),
      await registerHosted(t.app, "exact"),
      await registerHosted(t.app, "plain"),
    ];

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
    expect(await sellerOnChain(testMarket(), bounty.funding.transaction_id)).toBe(exact.wallet);
  });

  it("refuses a body without pitch or proposal_text, and bad prices; nothing is written", async () => {
    const poster = await registerHosted(t.app, "proposal refusals poster", 10n * USDC);
    const bounty = await postBounty(poster);
    const agent = await registerHosted(t.app, "refused proposer");
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
