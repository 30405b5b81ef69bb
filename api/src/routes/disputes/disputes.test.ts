import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { eq } from "drizzle-orm";
import pino from "pino";
import { type Address, keccak256, toBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket } from "../../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  newWallet,
  post,
  registerAgent,
  registerHosted,
  sessionOf,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";
import { LOCAL_ARBITER_PRIVATE_KEY } from "../../config.ts";
import { disputes } from "../../db/schema.ts";
import { keepDisputeReason } from "../../domain/disputes/disputes.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";

/*
 * The arbiter's desk on the suite's real chain, indexer and Postgres: hosted parties buy, deliver,
 * dispute and add evidence through the API (the relayer pays their gas); the arbiter reads the
 * queue and the case with its key or its Sign-In with Ethereum session (the local deployment's
 * arbiter, Hardhat account #1) and rules; balances are checked on chain. Sends nothing from dev
 * accounts (the arbiter's relayer sends the rulings).
 */

const PRICE = 10_000_000n;
let t: TestApp;
let market: Market;
let feeBps: bigint;
let notifier: ReturnType<typeof createEscrowEventNotifier>;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  feeBps = BigInt(
    await market.publicClient.readContract({ address: market.escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
  );
  notifier = createEscrowEventNotifier({ db: t.db, chainId: t.config.chainId, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

interface Agent {
  id: string;
  key: string;
  wallet: Address;
}

/** A funded purchase of a fresh hosted buyer (who holds PRICE more than it pays) from `seller`. */
async function purchase(seller: Agent) {
  const buyer: Agent = await registerHosted(t.app, "buyer", 2n * PRICE);
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state, "funded").toBe("FUNDED");
  return { buyer, id: bought.transaction_id as string };
}

const move = (id: string, action: string, body: unknown, key: string) =>
  post(t.app, `/api/transactions/${id}/${action}`, body, key);

/** A hosted purchase delivered and disputed by its buyer with `reason`. */
async function disputedPurchase(reason = "The report is missing half of the sections") {
  const seller: Agent = await registerHosted(t.app, "seller");
  const { buyer, id } = await purchase(seller);
  expect((await move(id, "deliver", { deliverable: "The report" }, seller.key)).status, "delivered").toBe(200);
  expect((await move(id, "dispute", { reason }, buyer.key)).status, "disputed").toBe(200);
  return { seller, buyer, id };
}

// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
type Json = any;

/**
 * The queue item of `id` with `status`, walking every page (other test files dispute too), and
 * checking on the way that the queue is oldest first; undefined when it is not listed.
 */
async function queued(status: "open" | "resolved", id: string, credential = ARBITER_API_KEY): Promise<Json> {
  let cursor: string | null = null;
  let previous = "";
  let found: Json;
  do {
    const query = new URLSearchParams({ status, limit: "100", ...(cursor && { cursor }) });
    const response = await get(t.app, `/api/disputes?${query}`, credential);
    expect(response.status, "queue answered").toBe(200);
    const page = await json(response);
    for (const item of page.disputes) {
      expect(item.raised_at >= previous, "oldest first").toBe(true);
      previous = item.raised_at;
      if (item.transaction_id === id) found = item;
    }
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}

async function notificationsAbout(agent: Agent, id: string) {
  const body = await json(await get(t.app, "/api/notifications?limit=100", agent.key));
  return (body.notifications as Array<{ kind: string; payload: Json }>).filter(
    (notification) => notification.payload.transaction_id === id,
  );
}

/** Runs the event notifier until `agent` has a `kind` notification about `id` (another file's notifier may hold the lock). */
async function notified(agent: Agent, id: string, kind: string) {
  for (let attempt = 0; attempt < 60; attempt++) {
    while ((await notifier.tick()) > 0);
    const found = (await notificationsAbout(agent, id)).find((notification) => notification.kind === kind);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no ${kind} notification about ${id}`);
}

const disputeRow = async (id: string) =>
  (await t.db.select().from(disputes).where(eq(disputes.transactionId, id)))[0] ?? null;

describe("a dispute at the arbiter's desk", () => {
  it("reason, evidence and messages reach the arbiter, who rules 60/40 with a note both parties read", async () => {
    const seller: Agent = await registerHosted(t.app, "seller");
    const buyer: Agent = await registerHosted(t.app, "buyer", 2n * PRICE);
    const stranger = await registerAgent(t.app, "stranger");
    const send = (from: Agent, to: Agent, content: string) =>
      post(t.app, "/api/messages/send", { to_agent_id: to.id, content }, from.key);
    // Before the transaction: not part of its case.
    expect((await send(buyer, seller, "Do you do audits?")).status).toBe(201);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
    const id = bought.transaction_id as string;
    expect((await send(buyer, seller, "Please cover all ten sections")).status).toBe(201);
    expect((await send(seller, buyer, "Will do, ten sections")).status).toBe(201);
    const deliverable = "Audit report: sections 1 to 5";
    expect((await move(id, "deliver", { deliverable }, seller.key)).status).toBe(200);
    const reason = "Only five of the ten sections were delivered";
    expect((await move(id, "dispute", { reason }, buyer.key)).status).toBe(200);
    const evidence = (from: Agent, body: unknown) => post(t.app, `/api/transactions/${id}/evidence`, body, from.key);
    expect((await evidence(buyer, { content: "The order asked for ten sections" })).status).toBe(201);
    expect(
      (await evidence(seller, { content: "Sections 6-10 were out of scope", url: "https://example.com/scope" })).status,
    ).toBe(201);

    // The queue: listed with its reason and both evidence items.
    const item = await queued("open", id);
    expect(item, "listed while open").toEqual({
      transaction_id: id,
      amount_wei: PRICE.toString(),
      amount_usdc: "10.00",
      buyer: { id: buyer.id, name: "buyer", reputation_tier: expect.any(String) },
      seller: { id: seller.id, name: "seller", reputation_tier: expect.any(String) },
      raised_by: "buyer",
      reason,
      raised_at: expect.any(String),
      evidence_count: 2,
      ruled_at: null,
      seller_bps: null,
      note: null,
    });
    const sellerProfile = await json(await get(t.app, `/api/agents/${seller.id}`));
    expect(item.seller.reputation_tier, "the seller's own tier").toBe(sellerProfile.reputation_tier);

    // The case: everything to decide it.
    const caseResponse = await get(t.app, `/api/disputes/${id}`, ARBITER_API_KEY);
    expect(caseResponse.status).toBe(200);
    const found = await json(caseResponse);
    expect(found.transaction).toMatchObject({
      id,
      state: "DISPUTED",
      dispute: { raised_by: "buyer", reason, raised_at: item.raised_at },
    });
    expect(found).toMatchObject({ raised_by: "buyer", reason, raised_at: item.raised_at });
    expect(found.fee_bps, "the escrow's fee, as it was funded, for the payout preview").toBe(Number(feeBps));
    expect(found.deliverable, "the content the chain committed to").toEqual({
      content: deliverable,
      url: null,
      hash: keccak256(toBytes(deliverable)),
      matches_chain: true,
    });
    expect(found.transaction.deliverable_hash).toBe(keccak256(toBytes(deliverable)));
    expect(
      found.messages.map((message: Json) => [message.sent_by, message.agent_id, message.content]),
      "messages since the transaction, oldest first",
    ).toEqual([
      ["buyer", buyer.id, "Please cover all ten sections"],
      ["seller", seller.id, "Will do, ten sections"],
    ]);
    expect(
      found.evidence.map((item: Json) => [item.submitted_by, item.agent_id, item.content, item.url]),
      "both sides' evidence",
    ).toEqual([
      ["buyer", buyer.id, "The order asked for ten sections", null],
      ["seller", seller.id, "Sections 6-10 were out of scope", "https://example.com/scope"],
    ]);
    const kinds = found.timeline.map((event: Json) => event.kind);
    for (const kind of ["CREATED", "FUNDED", "DELIVERED", "DISPUTED", "DELIVERABLE_SUBMITTED", "EVIDENCE"]) {
      expect(kinds, kind).toContain(kind);
    }
    const reputation = await json(await get(t.app, `/api/agents/${buyer.id}/reputation`));
    expect(found.buyer).toMatchObject({ id: buyer.id, name: "buyer", wallet_address: buyer.wallet });
    expect(found.buyer.reputation).toEqual({
      completed_transactions: reputation.completed_transactions,
      refunded: reputation.refunded,
      disputed: reputation.disputed,
      total_volume_wei: reputation.total_volume_wei,
      success_rate: reputation.success_rate,
      rated_deals: reputation.rated_deals,
      reputation_tier: reputation.reputation_tier,
    });
    expect(found.seller).toMatchObject({ id: seller.id, name: "seller", reputation: expect.any(Object) });

    // The seller heard of the dispute, with its reason.
    const disputedNote = await notified(seller, id, "transaction.disputed");
    expect(disputedNote.payload.reason).toBe(reason);

    // The ruling: 60% to the seller less the fee on that share, 40% back to the buyer.
    const note = "Half the sections were delivered; the scope was ambiguous.";
    const ruled = await post(t.app, `/api/transactions/${id}/resolve`, { seller_bps: 6_000, note }, ARBITER_API_KEY);
    expect(ruled.status).toBe(200);
    const sellerShare = (PRICE * 6_000n) / 10_000n;
    const fee = (sellerShare * feeBps) / 10_000n;
    expect(await json(ruled)).toMatchObject({
      transaction_id: id,
      state: "RELEASED",
      resolution: {
        seller_bps: 6000,
        seller_received_wei: (sellerShare - fee).toString(),
        buyer_refunded_wei: (PRICE - sellerShare).toString(),
        fee_wei: fee.toString(),
        note,
      },
    });
    expect(await usdcBalance(seller.wallet), "seller on chain").toBe(sellerShare - fee);
    expect(await usdcBalance(buyer.wallet), "buyer on chain").toBe(PRICE + (PRICE - sellerShare));

    // Both parties read the note and the reason; a stranger and an anonymous reader do not.
    for (const party of [buyer, seller]) {
      const read = await json(await get(t.app, `/api/transactions/${id}`, party.key));
      expect(read.resolution).toMatchObject({ seller_bps: 6000, note });
      expect(read.dispute.reason).toBe(reason);
    }
    for (const key of [stranger.key, undefined]) {
      const read = await json(await get(t.app, `/api/transactions/${id}`, key));
      expect(read.resolution).toMatchObject({ seller_bps: 6000, note: null });
      expect(read.dispute.reason).toBeNull();
    }

    // Both parties are notified, with the share and the note.
    for (const party of [buyer, seller]) {
      const resolved = await notified(party, id, "transaction.resolved");
      expect(resolved.payload).toMatchObject({ seller_bps: 6000, note, transaction_id: id });
    }

    // It leaves the open queue for the resolved one.
    expect(await queued("open", id), "no longer open").toBeUndefined();
    const done = await queued("resolved", id);
    expect(done).toMatchObject({ reason, evidence_count: 2, seller_bps: 6000, note, ruled_at: expect.any(String) });
    const row = await disputeRow(id);
    expect(row?.ruledAt?.toISOString()).toBe(done.ruled_at);
  });

  it("keeps the reason whose hash is on chain: a later attempt with other words never replaces it", async () => {
    // An external seller (its own wallet) is told what to send; the hosted buyer's dispute lands first.
    const seller = await registerAgent(t.app, "external seller");
    const { buyer, id } = await purchase({ ...seller, wallet: seller.wallet.address });
    expect((await move(id, "deliver", { deliverable: "work" }, seller.key)).status, "instructions").toBe(202);
    const told = await move(id, "dispute", { reason: "The buyer keeps changing the brief" }, seller.key);
    expect(told.status, "the seller's dispute instructions").toBe(202);
    // Kept while the chain shows no dispute, but shown to nobody: nothing is disputed on chain.
    expect((await disputeRow(id))?.reason).toBe("The buyer keeps changing the brief");
    expect((await json(await get(t.app, `/api/transactions/${id}`, seller.key))).dispute).toBeNull();

    const reason = "Nothing was delivered before the deadline";
    expect((await move(id, "dispute", { reason }, buyer.key)).status, "the buyer's dispute").toBe(200);
    expect((await disputeRow(id))?.reason, "the buyer's words replaced the attempt").toBe(reason);
    const onChain = await json(await get(t.app, `/api/disputes/${id}`, ARBITER_API_KEY));
    // The seller's delivery was only ever told, never sent: its content does not match the chain.
    expect(onChain).toMatchObject({
      raised_by: "buyer",
      reason,
      deliverable: { content: "work", url: null, hash: keccak256(toBytes("work")), matches_chain: false },
    });

    // The seller tries again with other words: refused, and the reason stays the buyer's.
    const again = await move(id, "dispute", { reason: "Another story" }, seller.key);
    expect(again.status).toBe(409);
    // Even kept directly (as an external party's late tx_hash would), other words do not replace it.
    await keepDisputeReason(t.config.chainId, { transactionId: id, agentId: seller.id, reason: "Another story" })(t.db);
    const row = await disputeRow(id);
    expect(row).toMatchObject({ reason, raisedByAgentId: buyer.id });
    for (const party of [buyer.key, seller.key, ARBITER_API_KEY]) {
      expect((await json(await get(t.app, `/api/transactions/${id}`, party))).dispute.reason).toBe(reason);
    }
  });
});

describe("who works the desk", () => {
  it("the arbiter's session reads the desk and rules; a party's key, another person's session or nothing is refused", async () => {
    const { seller, buyer, id } = await disputedPurchase();
    const arbiter = await sessionOf(t.app, privateKeyToAccount(LOCAL_ARBITER_PRIVATE_KEY), t.config.chainId);
    expect((await get(t.app, "/api/disputes", arbiter)).status, "queue by session").toBe(200);
    const found = await get(t.app, `/api/disputes/${id}`, arbiter);
    expect(found.status, "case by session").toBe(200);
    expect((await json(found)).transaction.id).toBe(id);

    const someone = await sessionOf(t.app, newWallet(), t.config.chainId);
    for (const path of ["/api/disputes", `/api/disputes/${id}`]) {
      for (const [label, credential, status] of [
        ["the buyer's key", buyer.key, 403],
        ["the seller's key", seller.key, 403],
        ["another person's session", someone, 403],
        ["no credential", undefined, 401],
        ["a key nobody holds", "b".repeat(64), 401],
      ] as const) {
        const response = await get(t.app, path, credential);
        expect(response.status, `${path} with ${label}`).toBe(status);
        expect(await json(response), label).toMatchObject({ error: expect.any(String) });
      }
    }
    const bySomeone = await post(t.app, `/api/transactions/${id}/resolve`, { seller_bps: 0 }, someone);
    expect(bySomeone.status, "another person's ruling").toBe(403);

    const ruled = await post(t.app, `/api/transactions/${id}/resolve`, { seller_bps: 0 }, arbiter);
    expect(ruled.status, "ruling by session").toBe(200);
    expect(await json(ruled)).toMatchObject({ state: "REFUNDED", resolution: { seller_bps: 0, note: null } });
    expect(await usdcBalance(buyer.wallet)).toBe(2n * PRICE);
    const resolved = await queued("resolved", id, arbiter);
    expect(resolved).toMatchObject({ seller_bps: 0, note: null, ruled_at: expect.any(String) });
  });
});

describe("bad input at the desk", () => {
  it("is a 4xx in the one error shape, and changes nothing", async () => {
    const { seller, buyer, id } = await disputedPurchase();
    const desk = (path: string) => get(t.app, path, ARBITER_API_KEY);
    for (const query of [
      "status=foo",
      "status=OPEN",
      "limit=0",
      "limit=1.5",
      "limit=ten",
      "cursor=garbage",
      `cursor=${Buffer.from(JSON.stringify({ at: "yesterday", id })).toString("base64url")}`,
      `cursor=${Buffer.from(JSON.stringify({ at: "12", id: "not-a-uuid" })).toString("base64url")}`,
      "unknown=1&status=foo",
    ]) {
      const response = await desk(`/api/disputes?${query}`);
      expect(response.status, query).toBe(400);
      expect(await json(response), query).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    for (const path of ["/api/disputes/not-a-uuid", "/api/disputes/6f1c2e9a-3b4d-4c5e-8f70-123456789abc"]) {
      const response = await desk(path);
      expect(response.status, path).toBe(404);
      expect(await json(response)).toMatchObject({ error: "Dispute not found", code: "not_found" });
    }
    // A real transaction, funded but never disputed, has no case.
    const { id: undisputed } = await purchase(seller);
    expect((await desk(`/api/disputes/${undisputed}`)).status, "never disputed").toBe(404);

    const rowBefore = await disputeRow(id);
    for (const body of [
      { seller_bps: 5_000, note: "x".repeat(4_001) },
      { seller_bps: 5_000, note: 7 },
      { seller_bps: 10_001, note: "too much" },
    ]) {
      const response = await post(t.app, `/api/transactions/${id}/resolve`, body, ARBITER_API_KEY);
      expect(response.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    expect(await disputeRow(id), "no note kept").toEqual(rowBefore);
    expect(rowBefore?.rulingNote).toBeNull();
    expect((await json(await get(t.app, `/api/transactions/${id}`))).state).toBe("DISPUTED");
    expect(await usdcBalance(buyer.wallet)).toBe(PRICE);
    expect(await queued("open", id), "still open").toMatchObject({ transaction_id: id });
  });
});
