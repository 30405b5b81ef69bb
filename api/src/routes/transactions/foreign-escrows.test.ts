import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { createMarketplaceClient, fundWithWallet } from "@agent-marketplace/sdk";
import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { type Address, decodeFunctionData, type Hex, keccak256, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexed } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  post,
  registerAgent,
  registerWithWallet,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { fundedIn, type Outsider, outsider } from "../../../test/outsider.ts";
import { notifications, reviews } from "../../db/schema.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";

/*
 * An escrow is a transaction's only when every term matches (domain/escrow-match.ts). An external
 * buyer holds its own keys and may fund the escrow it was told to fund with other terms: its own
 * second address as seller, another deadline. Such an escrow is foreign: the transaction stays
 * PENDING, nothing shows it funded or released, no review can cite it, and the seller is never told
 * it was paid. Every party here is a fresh key of test/outsider.ts.
 */

const PRICE = 1_000_000n;
const silent = pino({ level: "silent" });

let t: TestApp;

beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

interface Purchase {
  transactionId: string;
  approve: { to: string; data: string };
  fund: { to: string; data: string };
  /** The fund call's arguments, as the API wrote them. */
  args: readonly [Hex, Address, bigint, number, number];
}

/** An external buyer's first buy call: PENDING with the calls to send. */
async function buy(listingId: string, key: string): Promise<Purchase> {
  const response = await post(t.app, `/api/listings/${listingId}/buy`, {}, key);
  expect(response.status, "an external buyer's first call").toBe(201);
  const body = await json(response);
  const [approve, fund] = body.instructions.calls as { to: string; data: string }[];
  if (!approve || !fund) throw new Error("no calls");
  const decoded = decodeFunctionData({ abi: agentEscrowAbi, data: fund.data as Hex });
  expect(decoded.functionName).toBe("fund");
  return { transactionId: body.transaction_id, approve, fund, args: decoded.args as Purchase["args"] };
}

/** The fund call of `purchase` with `change` applied to its arguments, sent by `from`. */
async function fundWith(from: Outsider, purchase: Purchase, change: (args: Purchase["args"]) => Purchase["args"]) {
  const receipt = await from.escrow("fund", change(purchase.args));
  expect(receipt.status, "the escrow accepts the altered funding").toBe("success");
  return receipt;
}

async function transactionAs(id: string, key: string) {
  const response = await get(t.app, `/api/transactions/${id}`, key);
  expect(response.status).toBe(200);
  return json(response);
}

describe("a fake sale: the buyer funds the escrow it was told to fund, naming its own second address as seller", () => {
  let seller: { id: string; key: string };
  let listing: { id: string };
  let buyer: Outsider;
  let accomplice: Outsider;
  let buyerAgent: { id: string; key: string };
  let purchase: Purchase;
  let fundReceipt: Awaited<ReturnType<Outsider["send"]>>;

  beforeAll(async () => {
    seller = await registerAgent(t.app, "real seller");
    listing = await createListing(t.app, seller, { title: "Translation", price_wei: PRICE.toString() });
    buyer = await outsider(10n * PRICE);
    accomplice = await outsider();
    buyerAgent = await registerWithWallet(t.app, "faking buyer", buyer.address);

    purchase = await buy(listing.id, buyerAgent.key);
    expect((await buyer.sendCall(purchase.approve)).status).toBe("success");
    fundReceipt = await fundWith(buyer, purchase, ([ref, , amount, deadline, window]) => [
      ref,
      accomplice.address,
      amount,
      deadline,
      window,
    ]);
    // The accomplice "delivers", the buyer releases: the money goes round to the buyer's own address.
    const { escrowId, terms } = fundedIn(fundReceipt);
    expect((await accomplice.escrow("deliver", [escrowId, terms, keccak256(toHex("nothing"))])).status).toBe("success");
    const block = await t.services.chain.publicClient.getBlock();
    const delivered = { ...terms, deliveredAt: Number(block.timestamp) };
    const released = await buyer.escrow("release", [escrowId, delivered]);
    expect(released.status, "released on chain").toBe("success");
    await indexed(t.db, released);
  });

  it("the transaction stays PENDING for both parties, with no funding or release on it", async () => {
    for (const key of [buyerAgent.key, seller.key]) {
      const transaction = await transactionAs(purchase.transactionId, key);
      expect(transaction).toMatchObject({ state: "PENDING", seller: { id: seller.id } });
      expect(transaction.funding_tx_hash ?? null).toBeNull();
      expect(transaction.release_tx_hash ?? null).toBeNull();
    }
    const listed = await json(await get(t.app, `/api/transactions?agent_id=${seller.id}`, seller.key));
    const mine = listed.transactions.find((row: { id: string }) => row.id === purchase.transactionId);
    expect(mine?.state).toBe("PENDING");
    const released = await json(await get(t.app, `/api/transactions?state=RELEASED&agent_id=${seller.id}`, seller.key));
    expect(released.transactions).toHaveLength(0);
  });

  it("its timeline shows no on-chain event", async () => {
    const timeline = await json(await get(t.app, `/api/transactions/${purchase.transactionId}/timeline`, seller.key));
    expect(timeline.events.filter((event: { source: string }) => event.source === "chain")).toHaveLength(0);
  });

  it("a review citing it is refused and nothing is stored; the listing stays unrated and unbought", async () => {
    const response = await post(
      t.app,
      `/api/transactions/${purchase.transactionId}/review`,
      { rating: 1, comment: "terrible" },
      buyerAgent.key,
    );
    expect(response.status).toBe(409);
    const stored = await t.db.select().from(reviews).where(eq(reviews.transactionId, purchase.transactionId));
    expect(stored).toHaveLength(0);
    const details = await json(await get(t.app, `/api/listings/${listing.id}`));
    expect(details.avg_rating, "unrated").toBe("0.00");
    expect(details.times_purchased).toBe(0);
  });

  it("its tx_hash proves nothing: the confirm is refused and the transaction stays PENDING", async () => {
    const response = await post(
      t.app,
      `/api/transactions/${purchase.transactionId}/confirm`,
      { tx_hash: fundReceipt.transactionHash },
      buyerAgent.key,
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect((await transactionAs(purchase.transactionId, buyerAgent.key)).state).toBe("PENDING");
  });

  it("the seller is never told it was paid", async () => {
    // The notifier reads every escrow event up to the chain's head (the release was indexed above).
    while ((await createEscrowEventNotifier({ db: t.db, chainId: t.config.chainId, logger: silent }).tick()) > 0);
    const told = await t.db
      .select({ kind: notifications.kind })
      .from(notifications)
      .where(sql`${notifications.agentId} = ${seller.id} AND ${notifications.kind} LIKE 'payment.%'`);
    expect(told).toHaveLength(0);
  });
});

describe("an escrow funded with another deadline than the purchase's", () => {
  it("is not the purchase's: the transaction stays PENDING", async () => {
    const seller = await registerAgent(t.app, "deadline seller");
    const listing = await createListing(t.app, seller, { title: "Deadline", price_wei: PRICE.toString() });
    const buyer = await outsider(10n * PRICE);
    const buyerAgent = await registerWithWallet(t.app, "deadline buyer", buyer.address);
    const purchase = await buy(listing.id, buyerAgent.key);
    await buyer.sendCall(purchase.approve);
    const receipt = await fundWith(buyer, purchase, ([ref, seller, amount, deadline, window]) => [
      ref,
      seller,
      amount,
      deadline + 3600,
      window,
    ]);
    await indexed(t.db, receipt);
    expect((await transactionAs(purchase.transactionId, buyerAgent.key)).state).toBe("PENDING");
  });
});

describe("a squatter who sends the buyer's fund call first", () => {
  it("opens an escrow of its own: the buyer's funding with the API's instructions still succeeds, FUNDED", async () => {
    const seller = await registerAgent(t.app, "squatted seller");
    const listing = await createListing(t.app, seller, { title: "Squatted", price_wei: PRICE.toString() });
    const buyer = await outsider(10n * PRICE);
    const squatter = await outsider(10n * PRICE);
    const buyerAgent = await registerWithWallet(t.app, "squatted buyer", buyer.address);
    const purchase = await buy(listing.id, buyerAgent.key);

    // The pending purchase's calls are public enough: the squatter sends the very same fund call first.
    expect((await squatter.sendCall({ to: purchase.approve.to, data: purchase.approve.data })).status).toBe("success");
    const squat = await squatter.sendCall(purchase.fund);
    expect(squat.status, "the squatter's copy is accepted, into its own escrow").toBe("success");
    const squatted = fundedIn(squat);
    expect(squatted.terms.buyer).toBe(squatter.address);

    // The real buyer sends exactly what the API said: it lands in another escrow, the buyer's.
    expect((await buyer.sendCall(purchase.approve)).status).toBe("success");
    const funded = await buyer.sendCall(purchase.fund);
    expect(funded.status, "the real buyer's funding succeeds").toBe("success");
    const own = fundedIn(funded);
    expect(own.escrowId).not.toBe(squatted.escrowId);
    await indexed(t.db, funded);

    const confirmed = await post(
      t.app,
      `/api/transactions/${purchase.transactionId}/confirm`,
      { tx_hash: funded.transactionHash },
      buyerAgent.key,
    );
    expect(confirmed.status).toBe(200);
    const transaction = await transactionAs(purchase.transactionId, seller.key);
    expect(transaction).toMatchObject({
      state: "FUNDED",
      escrow_id_bytes32: own.escrowId,
      funding_tx_hash: funded.transactionHash,
    });
    // The squatter's tx_hash proves nothing for this purchase.
    const proved = await post(
      t.app,
      `/api/transactions/${purchase.transactionId}/confirm`,
      { tx_hash: squat.transactionHash },
      buyerAgent.key,
    );
    expect(proved.status).toBeGreaterThanOrEqual(400);
    expect(proved.status).toBeLessThan(500);
  });

  it("after a squat, the buyer's gasless funding (its EIP-3009 signature, sent by our relayer) still succeeds", async () => {
    const seller = await registerAgent(t.app, "gasless seller");
    const listing = await createListing(t.app, seller, { title: "Gasless squat", price_wei: PRICE.toString() });
    const buyer = await outsider(10n * PRICE);
    const squatter = await outsider(10n * PRICE);
    const buyerAgent = await registerWithWallet(t.app, "gasless buyer", buyer.address);
    const client = createMarketplaceClient({
      baseUrl: "http://localhost",
      apiKey: buyerAgent.key,
      fetch: async (input, init) => t.app.request(String(input), init),
      retries: 0,
    });
    const pending = await client.buyListing({ id: listing.id });
    // The squatter copies the pending purchase's fund call and sends it first, as itself.
    const calls = (pending as { instructions: { calls: { to: string; data: string }[] } }).instructions.calls;
    await squatter.sendCall(calls[0] as { to: string; data: string });
    expect((await squatter.sendCall(calls[1] as { to: string; data: string })).status).toBe("success");

    const funded = await fundWithWallet(client, buyer.signer, pending, { gasless: true });
    expect(funded).toMatchObject({ state: "FUNDED", transaction_id: pending.transaction_id });
    expect((await transactionAs(pending.transaction_id, buyerAgent.key)).state).toBe("FUNDED");
  });
});
