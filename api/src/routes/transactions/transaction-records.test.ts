import { randomBytes } from "node:crypto";
import { agentEscrowAbi, escrowIdOfTransaction } from "@agent-marketplace/contracts";
import { eq } from "drizzle-orm";
import {
  type Address,
  encodeAbiParameters,
  type Hex,
  keccak256,
  parseEventLogs,
  type TransactionReceipt,
  toBytes,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket } from "../../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  newWallet,
  post,
  registerHosted,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";
import type { Relayer } from "../../chain/relayer.ts";
import { disputes as disputeWords, relayedTransactions } from "../../db/schema.ts";
import { disputes } from "../../domain/disputes/disputes.ts";
import { TransactionRevertedError } from "../../domain/shared/errors.ts";

/*
 * A transaction's records for its parties (deliverable, evidence, timeline) and the arbiter's
 * ruling, on the suite's real chain. Sends nothing from dev accounts.
 */
const PRICE = 10_000_000n;
let t: TestApp;
let market: Market;
let feeBps: bigint;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  feeBps = BigInt(
    await market.publicClient.readContract({
      address: market.escrow,
      abi: agentEscrowAbi,
      functionName: "feeBps",
    }),
  );
});
afterAll(() => t.close());

interface Agent {
  id: string;
  key: string;
  wallet: Address;
}

const usdcOf = usdcBalance;

const hosted = (usdc = 0n): Promise<Agent> => registerHosted(t.app, "hosted", usdc);

/** A funded purchase between two fresh hosted agents; the buyer holds PRICE more than it pays. */
async function purchase() {
  const seller = await hosted();
  const buyer = await hosted(2n * PRICE);
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  return { seller, buyer, id: bought.transaction_id as string };
}

const resolve = (id: string, body: unknown, key = ARBITER_API_KEY) =>
  post(t.app, `/api/transactions/${id}/resolve`, body, key);

describe("deliverable and evidence", () => {
  it("the parties read the delivered content, whose hash is the on-chain one; others may not", async () => {
    const { seller, buyer, id } = await purchase();
    expect((await get(t.app, `/api/transactions/${id}/deliverable`, buyer.key)).status).toBe(404);
    const content = "Here is the dataset: https://example.com/data.csv";
    await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: content }, seller.key);
    const response = await get(t.app, `/api/transactions/${id}/deliverable`, buyer.key);
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ content, deliverable_hash: keccak256(toBytes(content)) });
    const stranger = await hosted();
    expect((await get(t.app, `/api/transactions/${id}/deliverable`, stranger.key)).status).toBe(403);
    expect((await get(t.app, `/api/transactions/${id}/deliverable`)).status).toBe(401);
  });

  it("a deliverable_url is kept with the content, bound into the on-chain hash, and shown to the parties", async () => {
    const { seller, buyer, id } = await purchase();
    const content = "The report, summarised: no critical findings.";
    const url = "https://example.com/reports/audit-42.pdf";
    const delivered = await post(
      t.app,
      `/api/transactions/${id}/deliver`,
      { deliverable: content, deliverable_url: url, agent_id: seller.id },
      seller.key,
    );
    expect(delivered.status).toBe(200);
    const hash = keccak256(encodeAbiParameters([{ type: "string" }, { type: "string" }], [content, url]));
    const answer = await json(delivered);
    expect(answer).toMatchObject({ deliverable_hash: hash, deliverable_url: url, state: "DELIVERED" });
    // What the escrow committed to is that hash: the Delivered event of the deliver transaction.
    const receipt = await market.publicClient.getTransactionReceipt({ hash: answer.tx_hash });
    const [event] = parseEventLogs({ abi: agentEscrowAbi, logs: receipt.logs, eventName: "Delivered" });
    expect(event?.args).toMatchObject({ escrowId: escrowIdOfTransaction(buyer.wallet, id), deliverableHash: hash });
    const detail = await json(await get(t.app, `/api/transactions/${id}`));
    expect(detail.deliverable_hash).toBe(hash);

    const read = await json(await get(t.app, `/api/transactions/${id}/deliverable`, buyer.key));
    expect(read).toMatchObject({ content, deliverable_url: url, deliverable_hash: hash });
    const timeline = await json(await get(t.app, `/api/transactions/${id}/timeline`, buyer.key));
    const submitted = timeline.events.find((event: { kind: string }) => event.kind === "DELIVERABLE_SUBMITTED");
    expect(submitted.details).toEqual({ deliverable_hash: hash, deliverable_url: url });
  });

  it("a delivery naming another agent in agent_id is refused 403, and nothing is stored or sent", async () => {
    const { seller, buyer, id } = await purchase();
    const refused = await post(
      t.app,
      `/api/transactions/${id}/deliver`,
      { deliverable: "work", deliverable_url: "https://example.com/w", agent_id: buyer.id },
      seller.key,
    );
    expect(refused.status).toBe(403);
    expect((await json(await get(t.app, `/api/transactions/${id}`))).state).toBe("FUNDED");
    expect((await get(t.app, `/api/transactions/${id}/deliverable`, buyer.key)).status).toBe(404);
    const timeline = await json(await get(t.app, `/api/transactions/${id}/timeline`, seller.key));
    expect(timeline.events.map((event: { kind: string }) => event.kind)).not.toContain("DELIVERABLE_SUBMITTED");
  });

  it("evidence only while disputed, from a party; the timeline shows every step with its tx hash", async () => {
    const { seller, buyer, id } = await purchase();
    const add = (key: string, body: unknown) => post(t.app, `/api/transactions/${id}/evidence`, body, key);
    expect((await add(buyer.key, { content: "too early" })).status).toBe(409);
    await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "half" }, seller.key);
    await post(t.app, `/api/transactions/${id}/dispute`, { reason: "Only half delivered" }, buyer.key);
    expect((await add(buyer.key, { content: "Page 2 is missing", url: "https://example.com/shot.png" })).status).toBe(
      201,
    );
    expect((await add(seller.key, { content: "Page 2 was not ordered" })).status).toBe(201);
    for (const body of [{}, { content: "" }, { content: "x", url: "ftp://x" }, { content: 5 }]) {
      expect((await add(buyer.key, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await add((await hosted()).key, { content: "me too" })).status).toBe(403);

    const timeline = await json(await get(t.app, `/api/transactions/${id}/timeline`, seller.key));
    expect(timeline.state).toBe("DISPUTED");
    const kinds = timeline.events.map((event: { kind: string }) => event.kind);
    for (const kind of ["CREATED", "FUNDED", "DELIVERED", "DISPUTED", "DELIVERABLE_SUBMITTED", "EVIDENCE"]) {
      expect(kinds).toContain(kind);
    }
    const onChain = timeline.events.filter((event: { source: string }) => event.source === "chain");
    expect(onChain.every((event: { tx_hash: string }) => /^0x[0-9a-f]{64}$/.test(event.tx_hash))).toBe(true);
    expect(kinds.filter((kind: string) => kind === "EVIDENCE")).toHaveLength(2);
  });
});

describe("the timeline's order and actors", () => {
  interface Event {
    kind: string;
    source: string;
    actor_role: string | null;
    actor_name: string | null;
  }

  it("keeps chain order and places the marketplace's events where they happened, though the chain's clock runs ahead", async () => {
    const { seller, buyer, id } = await purchase();
    const [buyerName, sellerName] = await Promise.all(
      [buyer, seller].map(async (agent) => (await json(await get(t.app, `/api/agents/${agent.id}`))).name as string),
    );
    // Blocks an hour ahead of the wall clock: ordering by time across the two clocks put every
    // marketplace event (the evidence too) before every on-chain one.
    await market.increaseTime(3600);
    await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "half the work" }, seller.key);
    await post(t.app, `/api/transactions/${id}/dispute`, { reason: "Only half" }, buyer.key);
    await post(t.app, `/api/transactions/${id}/evidence`, { content: "Pages 5 to 9 are missing" }, buyer.key);
    await post(t.app, `/api/transactions/${id}/evidence`, { content: "They were not ordered" }, seller.key);
    expect((await resolve(id, { seller_bps: 6_000, note: "Split" })).status).toBe(200);

    const timeline = await json(await get(t.app, `/api/transactions/${id}/timeline`, buyer.key));
    const events = timeline.events as Event[];
    expect(events.map((event) => [event.kind, event.actor_role, event.actor_name])).toEqual([
      ["CREATED", "buyer", buyerName],
      ["FUNDED", "buyer", buyerName],
      // The content is kept as the move is sent, at the same moment: it comes first.
      ["DELIVERABLE_SUBMITTED", "seller", sellerName],
      ["DELIVERED", "seller", sellerName],
      ["DISPUTED", "buyer", buyerName],
      ["EVIDENCE", "buyer", buyerName],
      ["EVIDENCE", "seller", sellerName],
      ["RESOLVED", "arbiter", null],
    ]);
    // The arbiter's case reads the same timeline.
    const file = await json(await get(t.app, `/api/disputes/${id}`, ARBITER_API_KEY));
    expect((file.timeline as Event[]).map((event) => event.kind)).toEqual(events.map((event) => event.kind));
  });
});

describe("resolve", () => {
  async function disputed() {
    const parties = await purchase();
    await post(t.app, `/api/transactions/${parties.id}/deliver`, { deliverable: "work" }, parties.seller.key);
    await post(t.app, `/api/transactions/${parties.id}/dispute`, { reason: "not as described" }, parties.buyer.key);
    return parties;
  }

  it("splits the amount: 70% to the seller less the fee, 30% back to the buyer", async () => {
    const { seller, buyer, id } = await disputed();
    const response = await resolve(id, { seller_bps: 7_000, note: "Mostly delivered" });
    expect(response.status).toBe(200);
    const sellerShare = (PRICE * 7_000n) / 10_000n;
    const fee = (sellerShare * feeBps) / 10_000n;
    const body = await json(response);
    expect(body).toMatchObject({
      state: "RELEASED",
      resolution: {
        seller_bps: 7000,
        seller_received_wei: (sellerShare - fee).toString(),
        buyer_refunded_wei: (PRICE - sellerShare).toString(),
        fee_wei: fee.toString(),
      },
    });
    expect(await usdcOf(seller.wallet)).toBe(sellerShare - fee);
    expect(await usdcOf(buyer.wallet)).toBe(2n * PRICE - PRICE + (PRICE - sellerShare));
    expect((await json(await get(t.app, `/api/transactions/${id}`))).state).toBe("RELEASED");
  });

  it("a ruling of 0 refunds the buyer", async () => {
    const { buyer, id } = await disputed();
    expect((await json(await resolve(id, { seller_bps: 0 }))).state).toBe("REFUNDED");
    expect(await usdcOf(buyer.wallet)).toBe(2n * PRICE);
  });

  it("only the arbiter's key, only a disputed transaction, only a valid share", async () => {
    const { seller, buyer, id } = await disputed();
    // A party's key is a credential, but not the desk's: 403; a key nobody holds, or none: 401.
    expect((await resolve(id, { seller_bps: 5_000 }, seller.key)).status).toBe(403);
    expect((await resolve(id, { seller_bps: 5_000 }, "b".repeat(64))).status).toBe(401);
    expect((await resolve(id, { seller_bps: 5_000 }, "")).status).toBe(401);
    for (const body of [
      { seller_bps: 10_001 },
      { seller_bps: -1 },
      { seller_bps: 1.5 },
      {},
      { seller_bps: 1, note: 5 },
    ]) {
      expect((await resolve(id, body)).status, JSON.stringify(body)).toBe(400);
    }
    const funded = await purchase();
    expect((await resolve(funded.id, { seller_bps: 5_000 })).status).toBe(409);
    expect((await resolve("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", { seller_bps: 5_000 })).status).toBe(404);
    expect((await json(await get(t.app, `/api/transactions/${id}`))).state).toBe("DISPUTED");
    expect(await usdcOf(buyer.wallet)).toBe(PRICE);
  });

  it("three rulings at once: one lands, the others are 409, and the stored note and share are the landed one's", async () => {
    const { id } = await disputed();
    const rulings = [
      { seller_bps: 2_500, note: "first" },
      { seller_bps: 10_000, note: "second" },
      { seller_bps: 0, note: "third" },
    ];
    const responses = await Promise.all(rulings.map((ruling) => resolve(id, ruling)));
    const answers = await Promise.all(responses.map((response) => json(response)));
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.filter((status) => status === 200),
      JSON.stringify(answers),
    ).toHaveLength(1);
    expect(
      statuses.filter((status) => status === 409),
      JSON.stringify(answers),
    ).toHaveLength(2);
    for (const answer of answers.filter((_, i) => statuses[i] === 409)) {
      expect(answer.error, "a refused ruling says why").toEqual(expect.any(String));
    }
    const landed = rulings[statuses.indexOf(200)];
    const winner = answers[statuses.indexOf(200)];
    // The Resolved event of the landed ruling's transaction carries its share.
    const receipt = await market.publicClient.getTransactionReceipt({ hash: winner.tx_hash });
    const [event] = parseEventLogs({ abi: agentEscrowAbi, logs: receipt.logs, eventName: "Resolved" });
    expect(event?.args.sellerBps, "the chain's share").toBe(landed?.seller_bps);

    // The arbiter reads the dispute's words (anyone else reads the note as null).
    const detail = await json(await get(t.app, `/api/transactions/${id}`, ARBITER_API_KEY));
    expect(detail.resolution, "the stored ruling").toMatchObject({
      seller_bps: landed?.seller_bps,
      note: landed?.note,
    });
  });

  it("a ruling that reverts on chain takes its note back", async () => {
    const { id } = await disputed();
    // An arbiter relayer whose ruling is recorded like the real one's, then mined and reverted.
    const from = newWallet().address;
    const chainInstance = `reverting-${randomBytes(4).toString("hex")}`;
    const reverting = {
      address: from,
      async submit(request) {
        const txHash = keccak256(randomBytes(32)) as Hex;
        await t.db.transaction(async (tx) => {
          await tx.insert(relayedTransactions).values({
            chainId: t.config.chainId,
            chainInstance,
            fromAddress: from,
            nonce: 0,
            toAddress: request.to,
            data: request.data,
            purpose: request.purpose,
            transactionId: request.transactionId,
            rawTransaction: "0x",
            txHash,
          });
          await request.record?.(tx, { txHash });
        });
        return { id: "stand-in", txHash, nonce: 0 };
      },
      async confirm(txHash) {
        await t.db
          .update(relayedTransactions)
          .set({ status: "reverted" })
          .where(eq(relayedTransactions.txHash, txHash));
        return { status: "reverted", blockNumber: 1n, transactionHash: txHash } as TransactionReceipt;
      },
    } as Relayer;
    const rulings = disputes({ ...t.services, db: t.db, arbiterRelayer: reverting });
    await expect(rulings.resolve({ transactionId: id, sellerBps: 5_000, note: "reverted" })).rejects.toBeInstanceOf(
      TransactionRevertedError,
    );
    const [words] = await t.db.select().from(disputeWords).where(eq(disputeWords.transactionId, id));
    expect(words, "the dispute's row").toMatchObject({ rulingNote: null, ruledAt: null });

    // The arbiter rules again, through the real relayer: that note is kept.
    expect((await resolve(id, { seller_bps: 4_000, note: "landed" })).status).toBe(200);
    const detail = await json(await get(t.app, `/api/transactions/${id}`, ARBITER_API_KEY));
    expect(detail.resolution).toMatchObject({ seller_bps: 4_000, note: "landed" });
  });
});
