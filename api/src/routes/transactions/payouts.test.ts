import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { and, eq, inArray } from "drizzle-orm";
import { type Address, getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  newWallet,
  post,
  registerHosted,
  registerWithWallet,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";
import { relayedTransactions } from "../../db/schema.ts";
import { escrowTimeouts } from "../../domain/transactions/timeouts.ts";

/*
 * Payouts nobody can block, on the suite's real chain with its clock moved: the seller's own
 * release is refused (409, with auto_release_at) until the dispute window has closed and then
 * sent by the service, for a hosted and an external seller alike; the buyer may release before;
 * the deliver answer says when the window closes; a keeper and a seller releasing at once send one
 * release. Balances are checked on chain; no dev account sends anything.
 */
const PRICE = 3_000_000n;

let t: TestApp;
let market: Market;
let timeouts: ReturnType<typeof escrowTimeouts>;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  timeouts = escrowTimeouts({ db: t.db, ...t.services });
});
afterAll(() => t.close());

interface Party {
  id: string;
  key: string;
  wallet: Address;
}

const usdcOf = usdcBalance;
const move = (id: string, action: string, body: unknown, key: string) =>
  post(t.app, `/api/transactions/${id}/${action}`, body, key);
const read = async (id: string) => json(await get(t.app, `/api/transactions/${id}`));

/** The escrow's fee on PRICE, from the contract's fee_bps (the escrows here are all funded under it). */
async function fee(): Promise<bigint> {
  const bps = await market.publicClient.readContract({
    address: market.escrow,
    abi: agentEscrowAbi,
    functionName: "feeBps",
  });
  return (PRICE * BigInt(bps)) / 10_000n;
}

/** A hosted buyer's funded purchase of a new listing of `seller`. */
async function purchase(seller: Party) {
  const buyer = await registerHosted(t.app, "buyer", 10n * USDC);
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state, "bought").toBe("FUNDED");
  return { buyer, id: bought.transaction_id as string };
}

/** A hosted seller's purchase, delivered: the deliver answer too. */
async function deliveredPurchase() {
  const seller = await registerHosted(t.app, "seller");
  const { buyer, id } = await purchase(seller);
  const response = await move(id, "deliver", { deliverable: "the work" }, seller.key);
  expect(response.status, "delivered").toBe(200);
  return { seller, buyer, id, delivered: await json(response) };
}

/** Moves the chain's clock past the dispute window of everything delivered so far. */
const closeWindows = () => market.increaseTime(t.config.disputeWindowSeconds + 60);

describe("the deliver answer", () => {
  it("carries auto_release_at: delivered_at plus the dispute window, as the transaction reads", async () => {
    const { id, delivered } = await deliveredPurchase();
    expect(delivered.dispute_window_hours, "window").toBe(t.config.disputeWindowSeconds / 3600);
    const expected = new Date(Date.parse(delivered.delivered_at) + t.config.disputeWindowSeconds * 1000).toISOString();
    expect(delivered.auto_release_at, "auto_release_at").toBe(expected);
    expect((await read(id)).auto_release_at, "the transaction's auto_release_at").toBe(expected);
  });
});

describe("the seller's own release", () => {
  it("before the window: 409 with the state and auto_release_at, nothing moves; after it: 200, paid amount − fee", async () => {
    const { seller, buyer, id, delivered } = await deliveredPurchase();
    const buyerBalance = await usdcOf(buyer.wallet);

    const early = await move(id, "release", {}, seller.key);
    expect(early.status, "before the window").toBe(409);
    const refusal = await json(early);
    expect(refusal, "the refusal").toMatchObject({
      state: "DELIVERED",
      transaction_id: id,
      auto_release_at: delivered.auto_release_at,
    });
    expect(refusal.error, "the refusal says when").toContain(delivered.auto_release_at);
    expect((await read(id)).state, "state before the window").toBe("DELIVERED");
    expect(await usdcOf(seller.wallet), "seller before the window").toBe(0n);

    await closeWindows();
    const released = await move(id, "release", {}, seller.key);
    expect(released.status, "after the window").toBe(200);
    const answer = await json(released);
    const expectedFee = await fee();
    expect(answer, "the release").toMatchObject({
      state: "RELEASED",
      seller_received_wei: (PRICE - expectedFee).toString(),
      fee_wei: expectedFee.toString(),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await read(id), "the transaction").toMatchObject({ state: "RELEASED", release_tx_hash: answer.tx_hash });
    expect(await usdcOf(seller.wallet), "seller paid").toBe(PRICE - expectedFee);
    expect(await usdcOf(buyer.wallet), "buyer's balance").toBe(buyerBalance);
    // The service sent it: the hosted seller still has no ETH.
    expect(await market.publicClient.getBalance({ address: seller.wallet }), "seller's ETH").toBe(0n);

    const again = await move(id, "release", {}, seller.key);
    expect(again.status, "released again").toBe(409);
    expect(await json(again), "the second refusal").toMatchObject({ state: "RELEASED" });
    expect(await usdcOf(seller.wallet), "seller paid once").toBe(PRICE - expectedFee);
  });

  it("the buyer still releases before the window", async () => {
    const { seller, buyer, id } = await deliveredPurchase();
    const released = await move(id, "release", {}, buyer.key);
    expect(released.status, "the buyer's release").toBe(200);
    expect(await usdcOf(seller.wallet), "seller paid").toBe(PRICE - (await fee()));
    expect((await move(id, "release", {}, seller.key)).status, "the seller's after it").toBe(409);
  });

  it("an external seller's release after the window is sent by the service: paid, no ETH spent", async () => {
    const account = newWallet();
    const registered = await registerWithWallet(t.app, "external seller", account.address);
    const seller = { ...registered, wallet: getAddress(account.address) };
    const { buyer, id } = await purchase(seller);
    // Delivered gasless: the seller signs, the relayer submits.
    const asked = await json(await move(id, "deliver", { deliverable: "signed work" }, seller.key));
    const typed = asked.instructions.typed_data;
    const signature = await account.signTypedData({
      ...typed,
      message: { ...typed.message, nonce: BigInt(typed.message.nonce), sigDeadline: BigInt(typed.message.sigDeadline) },
    });
    const signed = { signature, nonce: typed.message.nonce, sig_deadline: typed.message.sigDeadline };
    expect((await move(id, "deliver", { deliverable: "signed work", signed }, seller.key)).status, "delivered").toBe(
      200,
    );

    const early = await move(id, "release", {}, seller.key);
    expect(early.status, "before the window").toBe(409);
    expect(await json(early), "the refusal").toMatchObject({ state: "DELIVERED", auto_release_at: expect.any(String) });
    // A signature is not how this release is made: the service sends it.
    await closeWindows();
    expect((await move(id, "release", { signed }, seller.key)).status, "with a signature").toBe(400);
    expect((await read(id)).state, "state after the 400").toBe("DELIVERED");

    const buyerBalance = await usdcOf(buyer.wallet);
    const released = await move(id, "release", {}, seller.key);
    expect(released.status, "after the window").toBe(200);
    expect(await json(released), "the release").toMatchObject({ state: "RELEASED" });
    expect(await usdcOf(seller.wallet), "seller paid").toBe(PRICE - (await fee()));
    expect(await usdcOf(buyer.wallet), "buyer's balance").toBe(buyerBalance);
    expect(await market.publicClient.getBalance({ address: seller.wallet }), "seller's ETH").toBe(0n);
  });

  it("refused for a disputed delivery, also after the window", async () => {
    const { seller, buyer, id } = await deliveredPurchase();
    expect((await move(id, "dispute", { reason: "Not what was asked" }, buyer.key)).status, "disputed").toBe(200);
    await closeWindows();
    const refused = await move(id, "release", {}, seller.key);
    expect(refused.status, "the seller's release").toBe(409);
    expect(await json(refused), "the refusal").toMatchObject({ state: "DISPUTED" });
    expect(await usdcOf(seller.wallet), "seller's balance").toBe(0n);
  });
});

describe("a keeper and a seller releasing at the same moment", () => {
  it("send one release; the seller is answered with it", async () => {
    const { seller, id } = await deliveredPurchase();
    await closeWindows();
    // The keeper's own release of this escrow (its run would release the suite's other due escrows first).
    const due = (await timeouts.dueEscrows(10_000)).find((item) => item.id === id);
    if (!due) throw new Error("the delivered escrow is not due after its window");
    const [, response] = await Promise.all([timeouts.autoRelease(due), move(id, "release", {}, seller.key)]);
    expect(response.status, "the seller's answer").toBe(200);
    const answer = await json(response);
    expect(answer.state, "state").toBe("RELEASED");
    expect(await usdcOf(seller.wallet), "seller paid once").toBe(PRICE - (await fee()));
    const sends = await t.db
      .select({ txHash: relayedTransactions.txHash, status: relayedTransactions.status })
      .from(relayedTransactions)
      .where(
        and(
          eq(relayedTransactions.transactionId, id),
          inArray(relayedTransactions.purpose, ["auto-release", "seller-release"]),
        ),
      );
    expect(sends, "one release sent, and mined").toEqual([{ txHash: answer.tx_hash as Hex, status: "mined" }]);
    expect((await read(id)).release_tx_hash, "the transaction's release").toBe(answer.tx_hash);
  });
});
