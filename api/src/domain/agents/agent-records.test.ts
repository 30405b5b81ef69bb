import { mockUsdcAbi } from "@agent-marketplace/contracts";
import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { type Address, encodeFunctionData, type Hex, keccak256, maxUint256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { indexed, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  post,
  registerHosted,
  registerWithWallet,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { fundedIn, type Outsider, outsider } from "../../../test/outsider.ts";
import { chainAccountStats } from "../../db/chain-views.ts";
import { agentRecords } from "../../db/schema.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";
import { escrowMatches } from "../transactions/escrow-match.ts";
import { recordFiguresOf, refreshAgentRecords, type TransactionEscrow } from "./agent-records.ts";

/*
 * Track records count the transactions' own escrows only (agent-records.ts), on the suite's real
 * chain, indexer and Postgres. Outsiders (fresh keys of test/outsider.ts) send what they like to
 * the escrow contract: 1-wei escrows naming a seller's wallet, refunded at once, must not touch
 * its reputation, tier, success rate or place on the leaderboard (and /reputation/verify still
 * agrees); wash trades between an attacker's own addresses, one of them an agent, count neither
 * for that agent nor in /api/stats. Real transactions count as they always did, and the SQL that
 * counts them agrees with its TypeScript twin.
 */

/** Large sales, so that the seller is on the first page of the boards by earnings whatever else the suite sold. */
const PRICE = 500n * USDC;
let t: TestApp;
const notifier = () =>
  createEscrowEventNotifier({
    db: t.db,
    chainId: inject("stack").deployment.chainId,
    logger: pino({ level: "silent" }),
  });

beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

/** What the running API's notifier does every NOTIFY_INTERVAL_MS, and its minute's full refresh. */
async function catchUp() {
  const reader = notifier();
  while ((await reader.tick()) > 0);
  await refreshAgentRecords(t.db, t.config.chainId);
}

async function bought(seller: Agent, buyer: Agent): Promise<string> {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const answer = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(answer.state).toBe("FUNDED");
  return answer.transaction_id;
}

const move = async (id: string, action: string, body: unknown, key: string) =>
  expect((await post(t.app, `/api/transactions/${id}/${action}`, body, key)).status, action).toBe(200);

/** `from` lets the escrow contract spend its USDC. */
async function approveEscrow(from: Outsider) {
  const stack = inject("stack");
  const receipt = await from.send(
    stack.deployment.contracts.USDC.address,
    encodeFunctionData({
      abi: mockUsdcAbi,
      functionName: "approve",
      args: [stack.deployment.contracts.AgentEscrow.address, maxUint256],
    }),
  );
  expect(receipt.status).toBe("success");
}

/** `from` funds an escrow of its own naming `seller`, under a fresh reference. */
async function fundOwn(from: Outsider, seller: Address, amount: bigint) {
  const ref = keccak256(toHex(`outsider ${Math.random()}`)) as Hex;
  const block = await t.services.chain.publicClient.getBlock();
  const receipt = await from.escrow("fund", [ref, seller, amount, Number(block.timestamp) + 86_400, 3_600]);
  expect(receipt.status, "the escrow takes anyone's funding").toBe("success");
  return fundedIn(receipt);
}

/** An agent's public figures: reputation, profile, and its entries on the leaderboards. */
async function figuresOf(agent: { id: string }) {
  const reputation = await json(await get(t.app, `/api/agents/${agent.id}/reputation`));
  const profile = await json(await get(t.app, `/api/agents/${agent.id}`));
  const board = async (period: string) => {
    const { agents } = await json(await get(t.app, `/api/leaderboard?period=${period}&sort=earned&limit=100`));
    const entry = agents.find((e: { agent: { id: string } }) => e.agent.id === agent.id);
    return entry && { rank: entry.rank, completed: entry.completed, success_rate: entry.success_rate };
  };
  const [keptTier] = await t.db
    .execute<{ tier: string }>(sql`SELECT reputation_tier AS tier FROM app.agents WHERE id = ${agent.id}`)
    .then((result) => result.rows);
  return {
    reputation,
    profile: {
      transaction_count: profile.transaction_count,
      total_earned_wei: profile.total_earned_wei,
      reputation_tier: profile.reputation_tier,
    },
    keptTier: keptTier?.tier,
    week: await board("week"),
    all: await board("all"),
  };
}

async function stats() {
  const { total_transactions, total_volume_usd } = await json(await get(t.app, "/api/stats"));
  return { total_transactions, total_volume_usd };
}

describe("records count the transactions' own escrows only", () => {
  let seller: Agent;
  let buyer: Agent;
  let before: Awaited<ReturnType<typeof figuresOf>>;
  let statsBefore: Awaited<ReturnType<typeof stats>>;

  beforeAll(async () => {
    seller = await registerHosted(t.app, "victim seller");
    buyer = await registerHosted(t.app, "honest buyer", 6n * PRICE);
    for (let i = 0; i < 3; i++) {
      const id = await bought(seller, buyer);
      await move(id, "deliver", { deliverable: `work ${i}` }, seller.key);
      await move(id, "release", {}, buyer.key);
    }
    await move(await bought(seller, buyer), "refund", {}, buyer.key);
    await catchUp();
    before = await figuresOf(seller);
    statsBefore = await stats();
  });

  it("real transactions count as before: releases and a refund, in both roles", () => {
    expect(before.reputation).toMatchObject({
      completed_transactions: 3,
      refunded: 1,
      disputed: 0,
      total_volume_wei: (3n * PRICE).toString(),
      success_rate: 0.75,
      reputation_tier: "RELIABLE",
    });
    expect(before.profile).toMatchObject({ transaction_count: 4, reputation_tier: "RELIABLE" });
    expect(before.keptTier).toBe("RELIABLE");
    expect(before.week).toMatchObject({ completed: 3, success_rate: 0.75 });
    expect(before.all).toMatchObject({ completed: 3, success_rate: 0.75 });
  });

  it("an outsider's refunded 1-wei escrows naming the seller change nothing of its record; verify agrees", async () => {
    const attacker = await outsider(10n);
    await approveEscrow(attacker);
    const statsOfWallet = () =>
      t.db
        .select({ refunded: chainAccountStats.refundedAsSeller })
        .from(chainAccountStats)
        .where(eq(chainAccountStats.address, seller.wallet.toLowerCase()));
    const [indexedBefore] = await statsOfWallet();
    let last: Awaited<ReturnType<Outsider["send"]>> | undefined;
    for (let i = 0; i < 3; i++) {
      const { escrowId, terms } = await fundOwn(attacker, seller.wallet, 1n);
      last = await attacker.escrow("refund", [escrowId, terms]);
      expect(last.status, "the buyer may refund before delivery").toBe("success");
    }
    if (!last) throw new Error("no refund");
    await indexed(t.db, last);
    // The indexer counts every escrow naming the wallet: this is what reputation read before.
    const [indexedAfter] = await statsOfWallet();
    expect(indexedAfter?.refunded).toBe((indexedBefore?.refunded ?? 0) + 3);

    // Read at once (the profile and reputation count a moved record again), then once the
    // notifier and a full refresh have run (the lists' kept records).
    expect((await json(await get(t.app, `/api/agents/${seller.id}/reputation`))).reputation_tier).toBe("RELIABLE");
    await catchUp();
    expect(await figuresOf(seller)).toEqual(before);
    expect(await stats()).toEqual(statsBefore);
    const verified = await json(await get(t.app, `/api/agents/${seller.id}/reputation/verify`));
    expect(verified).toMatchObject({ matches: true, mismatches: [] });
    expect(verified.chain).toEqual(verified.indexed);
    expect(verified.chain).toMatchObject({ completed_transactions: 3, refunded: 1, success_rate: 0.75 });
  });

  it("wash trades between an attacker's addresses count neither for its agent nor in /api/stats", async () => {
    const washBuyer = await outsider(1_000n * USDC);
    const washSeller = await outsider();
    const agent = await registerWithWallet(t.app, "wash seller", washSeller.address);
    await approveEscrow(washBuyer);
    let last: Awaited<ReturnType<Outsider["send"]>> | undefined;
    for (let i = 0; i < 3; i++) {
      const { escrowId, terms } = await fundOwn(washBuyer, washSeller.address, 300n * USDC);
      last = await washBuyer.escrow("release", [escrowId, terms]);
      expect(last.status, "the buyer may release at once").toBe("success");
    }
    if (!last) throw new Error("no release");
    await indexed(t.db, last);
    await catchUp();
    const reputation = await json(await get(t.app, `/api/agents/${agent.id}/reputation`));
    expect(reputation).toMatchObject({ completed_transactions: 0, total_volume_wei: "0", reputation_tier: "NEWCOMER" });
    const washed = await figuresOf(agent);
    expect(washed.profile).toEqual({ transaction_count: 0, total_earned_wei: "0", reputation_tier: "NEWCOMER" });
    expect(washed.keptTier).toBe("NEWCOMER");
    expect(washed.week).toBeUndefined();
    expect(washed.all).toBeUndefined();
    const directory = await json(await get(t.app, "/api/agents?keyword=wash%20seller&sort=volume&limit=100"));
    expect(directory.agents.find((a: { id: string }) => a.id === agent.id)).toMatchObject({ transaction_count: 0 });
    expect(await stats()).toEqual(statsBefore);
    expect((await json(await get(t.app, `/api/agents/${agent.id}/reputation/verify`))).matches).toBe(true);
  });

  it("a real sale moves /api/stats by exactly its amount", async () => {
    const id = await bought(seller, buyer);
    await move(id, "deliver", { deliverable: "more work" }, seller.key);
    await move(id, "release", {}, buyer.key);
    const reader = notifier();
    while ((await reader.tick()) > 0);
    const after = await stats();
    expect(after.total_transactions).toBe(statsBefore.total_transactions + 1);
    const cents = (usd: string) => BigInt(usd.replace(".", ""));
    expect(cents(after.total_volume_usd) - cents(statsBefore.total_volume_usd)).toBe(PRICE / 10_000n);
    // A full refresh counts the same totals the notifier moved to.
    await refreshAgentRecords(t.db, t.config.chainId);
    expect(await stats()).toEqual(after);
  });

  it("the SQL that counts a record agrees with its TypeScript twin", async () => {
    for (const agent of [seller, buyer]) {
      const [kept] = await t.db.select().from(agentRecords).where(eq(agentRecords.agentId, agent.id));
      if (!kept) throw new Error("no kept record");
      // Every escrow naming the agent's wallet, and each transaction of the agent with what it expected.
      const { rows: escrows } = await t.db.execute<{
        uuid: string | null;
        buyer: string;
        seller: string;
        amount: string;
        deadline: string;
        dispute_window: number;
        delivered_at: string;
        status: TransactionEscrow["status"];
        is_bounty: boolean;
        disputed: boolean;
        seller_payout: string | null;
        buyer_payout: string | null;
        fee_paid: string | null;
      }>(sql`
        SELECT uuid, buyer, seller, amount::text, deadline::text, dispute_window, delivered_at::text, status,
          is_bounty, disputed_by IS NOT NULL AS disputed, seller_payout::text, buyer_payout::text, fee_paid::text
        FROM chain.escrow WHERE chain_id = ${t.config.chainId}
          AND (buyer = ${agent.wallet.toLowerCase()} OR seller = ${agent.wallet.toLowerCase()})`);
      const { rows: expected } = await t.db.execute<{
        id: string;
        amount_wei: string;
        deadline: string;
        dispute_window_seconds: number;
        buyer_agent_id: string;
        seller_agent_id: string | null;
        buyer_wallet: string;
        seller_wallet: string | null;
      }>(sql`
        SELECT t.id, t.amount_wei::text, extract(epoch FROM t.deadline)::bigint::text AS deadline, t.dispute_window_seconds, t.buyer_agent_id, t.seller_agent_id,
          b.wallet_address AS buyer_wallet, s.wallet_address AS seller_wallet
        FROM app.transactions t JOIN app.agents b ON b.id = t.buyer_agent_id
        LEFT JOIN app.agents s ON s.id = t.seller_agent_id
        WHERE t.buyer_agent_id = ${agent.id} OR t.seller_agent_id = ${agent.id}`);
      const own: TransactionEscrow[] = [];
      for (const escrow of escrows) {
        const transaction = expected.find((row) => row.id === escrow.uuid);
        if (!transaction) continue;
        const matches = escrowMatches(
          {
            uuid: escrow.uuid,
            buyer: escrow.buyer,
            seller: escrow.seller,
            amount: escrow.amount,
            deadline: escrow.deadline,
            disputeWindow: escrow.dispute_window,
            deliveredAt: escrow.delivered_at,
            status: escrow.status,
            isBounty: escrow.is_bounty,
          },
          {
            transactionId: transaction.id,
            amountWei: transaction.amount_wei,
            deadline: new Date(Number(transaction.deadline) * 1000),
            disputeWindowSeconds: transaction.dispute_window_seconds,
            buyerWallet: transaction.buyer_wallet,
            sellerWallet: transaction.seller_wallet,
            isBounty: false,
          },
        );
        if (!matches) continue;
        own.push({
          buyerAgentId: transaction.buyer_agent_id,
          sellerAgentId:
            escrow.seller === transaction.seller_wallet?.toLowerCase() ? transaction.seller_agent_id : null,
          status: escrow.status,
          amount: BigInt(escrow.amount),
          disputed: escrow.disputed,
          sellerPayout: BigInt(escrow.seller_payout ?? 0),
          buyerPayout: BigInt(escrow.buyer_payout ?? 0),
          feePaid: BigInt(escrow.fee_paid ?? 0),
        });
      }
      const { agentId: _, lastEvent: __, ...figures } = kept;
      expect(figures, agent === seller ? "seller" : "buyer").toEqual(recordFiguresOf(agent.id, own));
      expect(own.length).toBe(5);
    }
  });
});
