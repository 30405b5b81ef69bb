import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  newWallet,
  post,
  registerAgent,
  sessionOf,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../../test/harness.ts";
import { agentSpends, spendingApprovals, spendingLimits, transactions, withdrawals } from "../../db/schema.ts";

/*
 * Owners' spending caps on their hosted agents, on the suite's real chain and database: every cap
 * (per purchase, per day, approval) on every move the service signs (a buy, a buy at an accepted
 * offer, a bounty's reward, a direct escrow, a withdrawal), checked by what moved on chain and
 * what rows were written; concurrent buys at the edge of a daily cap through two API processes;
 * a move waiting for approval, approved into FUNDED or declined into nothing, approved twice at
 * once into one move; and who may set caps and decide approvals (an agent's key never: 403).
 */

let t: TestApp;
/** A second API process of the same deployment (its own pool and queue), for the races. */
let other: TestApp;
let chainId: number;
/** The person who owns the capped agents. */
let owner: { address: Address; session: string };
/** Someone else, signed in. */
let stranger: { address: Address; session: string };
/** An external agent that sells and receives escrows. */
let seller: { id: string; key: string };

beforeAll(async () => {
  // The races send many requests for one agent in a minute: its request budget is not under test.
  t = await testApp({ rateLimitPerMinute: 100_000 });
  other = await testApp({ masterKey: t.config.masterKey, rateLimitPerMinute: 100_000 });
  chainId = t.config.chainId;
  const signIn = async () => {
    const wallet = newWallet();
    return { address: wallet.address, session: await sessionOf(t.app, wallet, chainId) };
  };
  [owner, stranger] = await Promise.all([signIn(), signIn()]);
  seller = await registerAgent(t.app, `caps seller ${uniqueWord()}`);
});
afterAll(() => Promise.all([t.close(), other.close()]));

type Capped = { id: string; key: string; wallet: Address };
type Limits = { per_purchase_wei: string | null; per_day_wei: string | null; approval_above_wei: string | null };
const NONE: Limits = { per_purchase_wei: null, per_day_wei: null, approval_above_wei: null };
const usdc = (amount: number) => (BigInt(Math.round(amount * 100)) * (USDC / 100n)).toString();

function request(method: string, path: string, body: unknown, credential: string, app = t, agentId?: string) {
  return app.app.request(path, {
    method,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${credential}`,
      ...(agentId && { "X-Agent-Id": agentId }),
    },
    ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

const putLimits = (agentId: string, body: unknown, credential = owner.session) =>
  request("PUT", `/api/owner/agents/${agentId}/limits`, body, credential);

/** A hosted agent of `owner` holding `balance` USDC wei, with these caps. */
async function cappedAgent(balance: bigint, limits: Partial<Limits> = {}): Promise<Capped> {
  const created = await post(
    t.app,
    "/api/owner/agents",
    { name: `capped ${uniqueWord()}`, bio: "capped" },
    owner.session,
  );
  expect(created.status).toBe(201);
  const body = await json(created);
  const agent = {
    id: body.agent.id as string,
    key: body.api_key as string,
    wallet: getAddress(body.agent.wallet_address),
  };
  if (balance > 0n) {
    const grant = await post(t.app, "/api/dev/faucet", { address: agent.wallet, usdc_wei: balance.toString() });
    expect(grant.status).toBe(200);
  }
  const set = await putLimits(agent.id, { ...NONE, ...limits });
  expect(set.status, await set.clone().text()).toBe(200);
  return agent;
}

const listingAt = async (priceWei: string): Promise<string> =>
  (await createListing(t.app, seller, { title: `Work ${uniqueWord()}`, price_wei: priceWei })).id;

const freshAddress = () => getAddress(`0x${randomBytes(20).toString("hex")}`);

/** The money moves of a hosted agent, by its key (or, with `asOwner`, its owner's session). */
const moves = {
  buy: (agent: Capped, listingId: string, body: Record<string, unknown> = {}, app = t) =>
    request("POST", `/api/listings/${listingId}/buy`, body, agent.key, app),
  bounty: (agent: Capped, priceWei: string) =>
    request(
      "POST",
      "/api/listings",
      {
        agent_id: agent.id,
        title: `Bounty ${uniqueWord()}`,
        description: "capped",
        price_wei: priceWei,
        listing_type: "BOUNTY",
      },
      agent.key,
    ),
  direct: (agent: Capped, amountWei: string) =>
    request(
      "POST",
      "/api/transactions",
      { buyer_agent_id: agent.id, seller_agent_id: seller.id, amount_wei: amountWei, description: "direct" },
      agent.key,
    ),
  withdraw: (agent: Capped, to: string, amountWei: string, app = t) =>
    request("POST", "/api/wallet/withdraw", { destination_address: to, amount_wei: amountWei }, agent.key, app),
};

/** An ACCEPTED offer of `agent` at `priceWei` on a new listing of the seller: what buy_listing's offer_id names. */
async function acceptedOffer(agent: Capped, priceWei: string) {
  const listingId = await listingAt(usdc(9));
  const made = await request("POST", `/api/listings/${listingId}/offers`, { price_wei: priceWei }, agent.key);
  expect(made.status).toBe(201);
  const offerId: string = (await json(made)).offer.id;
  const accepted = await request("POST", `/api/offers/${offerId}/accept`, {}, seller.key);
  expect(accepted.status).toBe(200);
  return { listingId, offerId };
}

/** What moved for `agent`: its on-chain balance, its transactions and withdrawals. */
async function moved(agent: Capped) {
  const [balance, rows, sent] = await Promise.all([
    usdcBalance(agent.wallet),
    t.db.select({ id: transactions.id }).from(transactions).where(eq(transactions.buyerAgentId, agent.id)),
    t.db.select({ id: withdrawals.id }).from(withdrawals).where(eq(withdrawals.agentId, agent.id)),
  ]);
  return { balance, transactions: rows.length, withdrawals: sent.length };
}

async function expectSpendingLimit(
  response: Response,
  cap: "per_purchase" | "per_day",
  fields: Record<string, string>,
) {
  expect(response.status, await response.clone().text()).toBe(402);
  const body = await json(response);
  expect(body).toMatchObject({ code: "spending_limit", limit: cap, window_hours: 24, ...fields });
  expect(body.error).toContain(cap === "per_purchase" ? "per-purchase" : "per-day");
  expect(body.request_id).toEqual(expect.any(String));
}

const limitsRow = async (agentId: string) =>
  JSON.stringify(await t.db.select().from(spendingLimits).where(eq(spendingLimits.agentId, agentId)));

const approvalRows = async (agentId: string) =>
  t.db
    .select()
    .from(spendingApprovals)
    .where(eq(spendingApprovals.agentId, agentId))
    .orderBy(spendingApprovals.createdAt);

const notificationKinds = async (agent: Capped) =>
  ((await json(await get(t.app, "/api/notifications?limit=100", agent.key))).notifications as { kind: string }[])
    .map((n) => n.kind)
    .filter((kind) => kind.startsWith("approval."))
    // Newest first as listed: oldest first here.
    .reverse();

describe("setting caps", () => {
  it("the owner reads and sets them, the agent reads its own; its key, another owner and an external agent cannot set them", async () => {
    const agent = await cappedAgent(0n);
    const fresh = await json(await get(t.app, `/api/owner/agents/${agent.id}/limits`, owner.session));
    expect(fresh).toMatchObject({
      agent_id: agent.id,
      hosted: true,
      ...NONE,
      window_hours: 24,
      spent_24h_wei: "0",
      remaining_24h_wei: null,
      max_move_wei: null,
      pending_approvals: 0,
    });

    const set = await putLimits(agent.id, {
      per_purchase_wei: usdc(3),
      per_day_wei: 5_000_000,
      approval_above_wei: "0",
    });
    expect(set.status).toBe(200);
    const limits = {
      per_purchase_wei: usdc(3),
      per_day_wei: usdc(5),
      approval_above_wei: "0",
      spent_24h_wei: "0",
      remaining_24h_wei: usdc(5),
      max_move_wei: usdc(3),
    };
    expect(await json(set)).toMatchObject({ ...limits, updated_at: expect.any(String) });
    // The agent reads them (GET /api/agents/me/limits), by its key or its owner's session acting for it.
    expect(await json(await get(t.app, "/api/agents/me/limits", agent.key))).toMatchObject(limits);
    const asOwner = await request("GET", "/api/agents/me/limits", undefined, owner.session, t, agent.id);
    expect(await json(asOwner)).toMatchObject(limits);

    // Its own key cannot raise them, nor read them on the owners' route; another owner cannot either.
    const before = await limitsRow(agent.id);
    const raise = { per_purchase_wei: usdc(1000), per_day_wei: null, approval_above_wei: null };
    const byKey = await putLimits(agent.id, raise, agent.key);
    expect(byKey.status).toBe(403);
    expect((await json(byKey)).code).toBe("forbidden");
    expect((await get(t.app, `/api/owner/agents/${agent.id}/limits`, agent.key)).status).toBe(403);
    expect((await putLimits(agent.id, raise, stranger.session)).status).toBe(403);
    expect((await get(t.app, `/api/owner/agents/${agent.id}/limits`, stranger.session)).status).toBe(403);
    // Not even with its owner's agent header on a key, or by the agent's own routes.
    expect((await request("PUT", "/api/agents/me/limits", raise, agent.key)).status).toBe(404);
    expect((await putLimits(agent.id, raise, "")).status).toBe(401);
    expect(await limitsRow(agent.id)).toBe(before);

    // An external agent signs its own moves: no cap of the service holds them.
    const wallet = newWallet();
    const external = await post(t.app, "/api/agents/register", {
      agent_name: "own wallet",
      wallet_address: wallet.address,
    });
    const externalId: string = (await json(external)).agent.id;
    const walletSession = await sessionOf(t.app, wallet, chainId);
    const refused = await putLimits(externalId, raise, walletSession);
    expect(refused.status).toBe(400);
    expect((await json(refused)).error).toContain("hosted");
    expect(await limitsRow(externalId)).toBe("[]");

    // Null lifts a cap.
    const lifted = await putLimits(agent.id, NONE);
    expect(await json(lifted)).toMatchObject({ ...NONE, max_move_wei: null, remaining_24h_wei: null });
  });

  it("refuses bad input with 400 naming the field, and changes nothing", async () => {
    const agent = await cappedAgent(0n, { per_day_wei: usdc(5) });
    const before = await limitsRow(agent.id);
    const bad: [string, unknown][] = [
      ["negative string", { ...NONE, per_day_wei: "-1" }],
      ["negative number", { ...NONE, per_day_wei: -1 }],
      ["fraction string", { ...NONE, per_purchase_wei: "1.5" }],
      ["fraction number", { ...NONE, per_purchase_wei: 1.5 }],
      ["unsafe number", { ...NONE, per_purchase_wei: 2 ** 60 }],
      ["not a number", { ...NONE, approval_above_wei: "ten" }],
      ["above 2^128 - 1", { ...NONE, per_day_wei: (2n ** 128n).toString() }],
      ["79 digits", { ...NONE, per_day_wei: "9".repeat(79) }],
      ["boolean", { ...NONE, per_day_wei: true }],
      ["missing field", { per_purchase_wei: null, per_day_wei: null }],
      ["empty object", {}],
      ["array", [usdc(1)]],
      ["NUL byte", { ...NONE, per_day_wei: "1\u0000" }],
      ["lone surrogate", { ...NONE, per_day_wei: "\ud800" }],
      ["malformed JSON", "{ per_day_wei: 1"],
    ];
    for (const [what, body] of bad) {
      const response = await putLimits(agent.id, body);
      expect(response.status, what).toBe(400);
      const answer = await json(response);
      expect(answer.code, what).toMatch(/^(invalid_request|invalid_characters|bad_request)$/);
      expect(answer.request_id, what).toEqual(expect.any(String));
    }
    // An id that names no agent (not a uuid, or unknown) is 404, as everywhere in the API; a NUL in the path 400.
    expect((await putLimits("not-a-uuid", NONE)).status).toBe(404);
    expect((await putLimits("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", NONE)).status).toBe(404);
    expect((await putLimits("%00", NONE)).status).toBe(400);
    expect(await limitsRow(agent.id)).toBe(before);

    // The approvals list: a bad state, agent id or cursor is 400; another owner's agent 403.
    for (const query of ["state=open", "agent_id=xyz", "cursor=garbage", "limit=0", "state=%00"]) {
      const response = await get(t.app, `/api/owner/approvals?${query}`, owner.session);
      expect(response.status, query).toBe(400);
    }
    expect((await get(t.app, `/api/owner/approvals?agent_id=${agent.id}`, stranger.session)).status).toBe(403);
    expect((await get(t.app, "/api/owner/approvals", agent.key)).status).toBe(403);
  });
});

describe("per-purchase cap", () => {
  it("refuses every move above it (402, nothing moved); a withdrawal to the owner's address is not capped", async () => {
    const agent = await cappedAgent(20n * USDC, { per_purchase_wei: usdc(3) });
    const listing = await listingAt(usdc(4));
    const { listingId: offerListing, offerId } = await acceptedOffer(agent, usdc(3.5));
    const before = await moved(agent);
    const refusal = { limit_wei: usdc(3), spent_wei: "0", remaining_wei: usdc(3) };

    await expectSpendingLimit(await moves.buy(agent, listing), "per_purchase", { ...refusal, amount_wei: usdc(4) });
    await expectSpendingLimit(await moves.buy(agent, offerListing, { offer_id: offerId }), "per_purchase", {
      ...refusal,
      amount_wei: usdc(3.5),
    });
    await expectSpendingLimit(await moves.bounty(agent, usdc(5)), "per_purchase", { ...refusal, amount_wei: usdc(5) });
    await expectSpendingLimit(await moves.direct(agent, usdc(3.01)), "per_purchase", refusal);
    await expectSpendingLimit(await moves.withdraw(agent, freshAddress(), usdc(10)), "per_purchase", refusal);
    // The owner's own session is held to the caps as well (its own moves skip only the approval).
    const ownerBuy = await request("POST", `/api/listings/${listing}/buy`, {}, owner.session, t, agent.id);
    await expectSpendingLimit(ownerBuy, "per_purchase", refusal);
    expect(await moved(agent)).toEqual(before);
    // The offer is still ACCEPTED: the refused purchase recorded nothing.
    expect((await json(await get(t.app, `/api/offers/${offerId}`, agent.key))).offer.status).toBe("ACCEPTED");

    // Exactly the cap passes; to the owner's own address, any amount.
    expect((await moves.direct(agent, usdc(3))).status).toBe(201);
    const home = await moves.withdraw(agent, owner.address, usdc(10));
    expect(home.status).toBe(200);
    expect(await moved(agent)).toEqual({ balance: 7n * USDC, transactions: 1, withdrawals: 1 });
    // Only the capped move counts as spending.
    expect(await json(await get(t.app, "/api/agents/me/limits", agent.key))).toMatchObject({ spent_24h_wei: usdc(3) });
  });
});

describe("per-day cap", () => {
  it("counts every kind of move in the last 24 hours and refuses the one that would pass it", async () => {
    const agent = await cappedAgent(20n * USDC, { per_day_wei: usdc(6) });
    const listing = await listingAt(usdc(1.5));
    const { listingId: offerListing, offerId } = await acceptedOffer(agent, usdc(1));

    expect((await moves.buy(agent, listing)).status).toBe(200);
    expect((await moves.buy(agent, offerListing, { offer_id: offerId })).status).toBe(200);
    expect((await moves.bounty(agent, usdc(1.5))).status).toBe(201);
    // 4 of 6 spent: a 2.5 escrow would pass the day, and a 2.01 withdrawal.
    await expectSpendingLimit(await moves.direct(agent, usdc(2.5)), "per_day", {
      limit_wei: usdc(6),
      amount_wei: usdc(2.5),
      spent_wei: usdc(4),
      remaining_wei: usdc(2),
    });
    await expectSpendingLimit(await moves.withdraw(agent, freshAddress(), usdc(2.01)), "per_day", {
      spent_wei: usdc(4),
      remaining_wei: usdc(2),
    });
    expect((await moves.direct(agent, usdc(1))).status).toBe(201);
    expect((await moves.withdraw(agent, freshAddress(), usdc(1))).status).toBe(200);
    await expectSpendingLimit(await moves.buy(agent, listing), "per_day", { spent_wei: usdc(6), remaining_wei: "0" });
    expect(await json(await get(t.app, "/api/agents/me/limits", agent.key))).toMatchObject({
      spent_24h_wei: usdc(6),
      remaining_24h_wei: "0",
      max_move_wei: "0",
    });
    expect(await moved(agent)).toEqual({ balance: 14n * USDC, transactions: 4, withdrawals: 1 });

    // Spending older than 24 hours no longer counts (spending-caps.test.ts: nor a reverted send).
    await t.db
      .update(agentSpends)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(agentSpends.agentId, agent.id));
    expect(await json(await get(t.app, "/api/agents/me/limits", agent.key))).toMatchObject({ spent_24h_wei: "0" });
    expect((await moves.buy(agent, listing)).status).toBe(200);
  });

  it("of 20 concurrent buys through two API processes, funds exactly what fits (3), refuses the rest 402 and moves nothing else", async () => {
    const price = 2n * USDC;
    const agent = await cappedAgent(40n * USDC, { per_day_wei: (3n * price + price / 2n).toString() });
    const listing = await listingAt(price.toString());
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => moves.buy(agent, listing, {}, i % 2 === 0 ? t : other)),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(3).fill(200), ...Array(17).fill(402)]);
    for (const response of responses.filter((r) => r.status === 402)) {
      expect((await json(response)).code).toBe("spending_limit");
    }
    const after = await moved(agent);
    expect(after).toEqual({ balance: 40n * USDC - 3n * price, transactions: 3, withdrawals: 0 });
    // The escrows funded on chain hold exactly the three purchases.
    const { rows } = await t.db.execute<{ funded: string }>(sql`
      SELECT coalesce(sum(e.amount), 0)::text AS funded FROM app.transactions t
      JOIN chain.escrow e ON e.uuid = t.id::text WHERE t.buyer_agent_id = ${agent.id}`);
    expect(rows[0]?.funded).toBe((3n * price).toString());
    expect(await json(await get(t.app, "/api/agents/me/limits", agent.key))).toMatchObject({
      spent_24h_wei: (3n * price).toString(),
    });
  });

  it("of a buy and a withdrawal racing for the last of the day, moves one", async () => {
    const agent = await cappedAgent(10n * USDC, { per_day_wei: usdc(2) });
    const listing = await listingAt(usdc(2));
    const [bought, sent] = await Promise.all([
      moves.buy(agent, listing),
      moves.withdraw(agent, freshAddress(), usdc(2), other),
    ]);
    expect([bought.status, sent.status].sort()).toEqual([200, 402]);
    const after = await moved(agent);
    expect(after.balance).toBe(8n * USDC);
    expect(after.transactions + after.withdrawals).toBe(1);
  });
});

describe("approval above a threshold", () => {
  it("every kind of move the agent asks for waits (202, notified, nothing moved); approved, each is carried out", async () => {
    const agent = await cappedAgent(20n * USDC, { approval_above_wei: usdc(1) });
    const listing = await listingAt(usdc(2));
    const { listingId: offerListing, offerId } = await acceptedOffer(agent, usdc(1.5));
    const destination = freshAddress();
    const before = await moved(agent);

    const asked = [
      await moves.buy(agent, listing, { expected_price_wei: usdc(2) }),
      await moves.buy(agent, offerListing, { offer_id: offerId }),
      await moves.bounty(agent, usdc(2)),
      await moves.direct(agent, usdc(2)),
      await moves.withdraw(agent, destination, usdc(2)),
    ];
    const waiting = [];
    for (const response of asked) {
      expect(response.status, await response.clone().text()).toBe(202);
      const body = await json(response);
      expect(body).toMatchObject({
        state: "AWAITING_APPROVAL",
        approval: { agent_id: agent.id, state: "pending", result: null, failure: null },
        message: expect.stringContaining("approve"),
      });
      expect(Date.parse(body.approval.expires_at) - Date.parse(body.approval.created_at)).toBe(24 * 3_600_000);
      waiting.push(body.approval);
    }
    expect(waiting.map((a) => [a.action, a.amount_wei])).toEqual([
      ["buy", usdc(2)],
      ["buy", usdc(1.5)],
      ["bounty", usdc(2)],
      ["transaction", usdc(2)],
      ["withdrawal", usdc(2)],
    ]);
    expect(await moved(agent)).toEqual(before);
    expect(await notificationKinds(agent)).toEqual(Array(5).fill("approval.requested"));
    // A retried request asks once: the same approval.
    const again = await json(await moves.withdraw(agent, destination, usdc(2)));
    expect(again.approval.id).toBe(waiting[4].id);
    // Moves at or under the threshold, and the owner's own moves, do not wait.
    expect((await moves.direct(agent, usdc(1))).status).toBe(201);
    const ownerBuy = await request("POST", `/api/listings/${listing}/buy`, {}, owner.session, t, agent.id);
    expect(ownerBuy.status).toBe(200);

    const listed = await json(
      await get(t.app, `/api/owner/approvals?state=pending&agent_id=${agent.id}`, owner.session),
    );
    expect(listed.approvals.map((a: { id: string }) => a.id)).toEqual(waiting.map((a) => a.id).reverse());
    expect((await json(await get(t.app, "/api/agents/me/limits", agent.key))).pending_approvals).toBe(5);

    for (const approval of waiting) {
      const approved = await request("POST", `/api/owner/approvals/${approval.id}/approve`, undefined, owner.session);
      expect(approved.status, await approved.clone().text()).toBe(200);
      expect(await json(approved)).toMatchObject({
        id: approval.id,
        state: "approved",
        result: { tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
        decided_at: expect.any(String),
        completed_at: expect.any(String),
      });
    }
    const results = (await approvalRows(agent.id)).map((row) => row.result as Record<string, string>);
    // The purchases and the escrow are FUNDED, the bounty listed, the withdrawal confirmed.
    for (const result of results.slice(0, 4)) {
      const read = await json(await get(t.app, `/api/transactions/${result.transaction_id}`, agent.key));
      expect(read.state).toBe("FUNDED");
    }
    expect(results[2]?.listing_id).toEqual(expect.any(String));
    expect((await json(await get(t.app, `/api/listings/${results[2]?.listing_id}`))).state).toBe("active");
    expect(results[4]).toMatchObject({ withdrawal_id: expect.any(String), state: "CONFIRMED" });
    expect(await usdcBalance(destination)).toBe(2n * USDC);
    expect((await json(await get(t.app, `/api/offers/${offerId}`, agent.key))).offer.status).toBe("PURCHASED");
    expect(await moved(agent)).toEqual({
      // Approved: 2 + 1.5 + 2 + 2 + 2; not waiting: the escrow of 1 and the owner's buy of 2.
      balance: before.balance - 12_500_000n,
      transactions: 6,
      withdrawals: 1,
    });
    expect(await notificationKinds(agent)).toEqual([
      ...Array(5).fill("approval.requested"),
      ...Array(5).fill("approval.approved"),
    ]);
    // Approved once: a second approval is 409, and moves nothing.
    const twice = await request("POST", `/api/owner/approvals/${waiting[0].id}/approve`, undefined, owner.session);
    expect(twice.status).toBe(409);
    expect(await json(twice)).toMatchObject({ code: "approval_closed", state: "approved" });
  });

  it("declined, nothing moves; approved twice at once, one move; a key or another owner cannot decide", async () => {
    const agent = await cappedAgent(10n * USDC, { approval_above_wei: "0" });
    const listing = await listingAt(usdc(1));
    const first = (await json(await moves.buy(agent, listing))).approval;
    const second = (await json(await moves.direct(agent, usdc(1)))).approval;
    const before = await moved(agent);

    // Neither the agent's key nor another owner decides.
    for (const credential of [agent.key, stranger.session]) {
      for (const move of ["approve", "decline"]) {
        const response = await request("POST", `/api/owner/approvals/${first.id}/${move}`, undefined, credential);
        expect(response.status, `${move} by ${credential.slice(0, 5)}`).toBe(403);
      }
    }
    expect((await request("POST", "/api/owner/approvals/not-a-uuid/approve", undefined, owner.session)).status).toBe(
      404,
    );
    expect((await approvalRows(agent.id)).map((row) => row.state)).toEqual(["pending", "pending"]);

    const declined = await request("POST", `/api/owner/approvals/${first.id}/decline`, undefined, owner.session);
    expect(declined.status).toBe(200);
    expect(await json(declined)).toMatchObject({ state: "declined", result: null });
    expect((await request("POST", `/api/owner/approvals/${first.id}/approve`, undefined, owner.session)).status).toBe(
      409,
    );
    expect(await moved(agent)).toEqual(before);

    // Two approvals at once, through two API processes: one is carried out, the other is 409.
    const both = await Promise.all([
      request("POST", `/api/owner/approvals/${second.id}/approve`, undefined, owner.session),
      request("POST", `/api/owner/approvals/${second.id}/approve`, undefined, owner.session, other),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await moved(agent)).toEqual({ balance: before.balance - USDC, transactions: 1, withdrawals: 0 });
    expect(await notificationKinds(agent)).toEqual([
      "approval.requested",
      "approval.requested",
      "approval.declined",
      "approval.approved",
    ]);
  });

  it("judges the caps again when approved: refused then, the approval fails and nothing moves", async () => {
    const agent = await cappedAgent(10n * USDC, { per_day_wei: usdc(5), approval_above_wei: usdc(1) });
    const asked = await json(await moves.direct(agent, usdc(4)));
    expect(asked.state).toBe("AWAITING_APPROVAL");
    // Meanwhile the day fills up (the owner's own moves count too).
    const listing = await listingAt(usdc(2));
    expect((await request("POST", `/api/listings/${listing}/buy`, {}, owner.session, t, agent.id)).status).toBe(200);
    const before = await moved(agent);
    const approved = await request(
      "POST",
      `/api/owner/approvals/${asked.approval.id}/approve`,
      undefined,
      owner.session,
    );
    await expectSpendingLimit(approved, "per_day", { spent_wei: usdc(2), remaining_wei: usdc(3) });
    const failed = (await approvalRows(agent.id))[0];
    expect(failed).toMatchObject({ state: "failed", failure: { code: "spending_limit" } });
    expect(await moved(agent)).toEqual(before);
    expect(await notificationKinds(agent)).toEqual(["approval.requested", "approval.failed"]);
    expect((await request("POST", `/api/owner/approvals/${failed?.id}/approve`, undefined, owner.session)).status).toBe(
      409,
    );
  });

  it("expires after 24 hours: read as expired, and approving it then is 409", async () => {
    const agent = await cappedAgent(5n * USDC, { approval_above_wei: "0" });
    const asked = (await json(await moves.withdraw(agent, freshAddress(), usdc(1)))).approval;
    await t.db
      .update(spendingApprovals)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(spendingApprovals.id, asked.id));
    const page = await json(await get(t.app, `/api/owner/approvals?agent_id=${agent.id}&state=expired`, owner.session));
    expect(page.approvals.map((a: { id: string; state: string }) => [a.id, a.state])).toEqual([[asked.id, "expired"]]);
    expect(
      (await json(await get(t.app, `/api/owner/approvals?agent_id=${agent.id}&state=pending`, owner.session)))
        .approvals,
    ).toEqual([]);
    const late = await request("POST", `/api/owner/approvals/${asked.id}/approve`, undefined, owner.session);
    expect(late.status).toBe(409);
    expect(await json(late)).toMatchObject({ code: "approval_closed", state: "expired" });
    expect((await approvalRows(agent.id))[0]?.state).toBe("expired");
    expect(await moved(agent)).toEqual({ balance: 5n * USDC, transactions: 0, withdrawals: 0 });
  });
});

describe("through the MCP tools", () => {
  it("get_spending_limits shows the caps and what remains; a capped buy_listing says why, one waiting for approval says so", async () => {
    const agent = await cappedAgent(10n * USDC, { per_day_wei: usdc(5), approval_above_wei: usdc(2) });
    const client = new Client({ name: "spending-caps-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        requestInit: { headers: { authorization: `Bearer ${agent.key}` } },
        fetch: async (url, init) => t.app.request(String(url), init),
      }),
    );
    type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text: string }> };
    const call = async (name: string, args: Record<string, unknown>) => {
      const answer = (await client.callTool({ name, arguments: args })) as ToolAnswer;
      return { isError: answer.isError ?? false, body: JSON.parse(answer.content[0]?.text ?? "null") };
    };
    try {
      const buy = async (price: string) =>
        call("buy_listing", { listing_id: await listingAt(price), expected_price_wei: price });
      const bought = await buy(usdc(1.5));
      expect(bought, JSON.stringify(bought.body)).toMatchObject({ isError: false, body: { state: "FUNDED" } });
      const limits = await call("get_spending_limits", {});
      expect(limits).toMatchObject({
        isError: false,
        body: {
          per_day_wei: usdc(5),
          approval_above_wei: usdc(2),
          spent_24h_wei: usdc(1.5),
          remaining_24h_wei: usdc(3.5),
          remaining_24h_usdc: "3.500000",
          max_move_wei: usdc(3.5),
        },
      });
      const waiting = await buy(usdc(3));
      expect(waiting).toMatchObject({
        isError: false,
        body: { state: "AWAITING_APPROVAL", approval: { action: "buy", amount_wei: usdc(3), state: "pending" } },
      });
      const capped = await buy(usdc(4));
      expect(capped).toMatchObject({
        isError: true,
        body: { status: 402, code: "spending_limit", remaining_wei: usdc(3.5), hint: expect.stringContaining("owner") },
      });
    } finally {
      await client.close();
    }
  });
});
