import { agentEscrowAbi } from "@agent-marketplace/contracts";
import { sql } from "drizzle-orm";
import { type Address, type Hex, keccak256, toBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  post,
  registerHosted,
  registerWithWallet,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";

/*
 * Deliver, release, refund and dispute on the suite's real chain, for hosted parties (signed by
 * their custodial keys, relayed) and an external seller (who sends the call and hands in the
 * tx_hash, or signs it for the relayer). Balances are checked on chain. Dev accounts 4 and 11 are
 * this file's own.
 */
const EXTERNAL_SELLER = 11;
/** Only signs (gasless): its ETH balance must not move. */
const GASLESS_SELLER = 4;
const PRICE = 4_000_000n;

let t: TestApp;
let market: Market;
let feeBps: bigint;
let feeRecipient: Address;

interface Party {
  id: string;
  key: string;
  wallet: Address;
}

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  feeBps = BigInt(
    await market.publicClient.readContract({ address: market.escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
  );
  feeRecipient = await market.publicClient.readContract({
    address: market.escrow,
    abi: agentEscrowAbi,
    functionName: "feeRecipient",
  });
});
afterAll(() => t.close());

const usdcOf = usdcBalance;

const hosted = (name: string, usdc = 0n): Promise<Party> => registerHosted(t.app, name, usdc);

/** A hosted buyer's funded purchase of a new listing of `seller`. */
async function fundedPurchase(seller: Party) {
  const buyer = await hosted("buyer", 10n * USDC);
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state).toBe("FUNDED");
  return { buyer, id: bought.transaction_id as string };
}

const move = (id: string, action: string, body: unknown, key: string) =>
  post(t.app, `/api/transactions/${id}/${action}`, body, key);
const stateOf = async (id: string) => (await json(await get(t.app, `/api/transactions/${id}`))).state;

describe("hosted parties", () => {
  it("deliver then release: the seller gets amount − fee, the fee recipient the fee", async () => {
    const seller = await hosted("seller");
    const { buyer, id } = await fundedPurchase(seller);
    const deliverable = "The audit report: no findings.";
    const delivered = await move(id, "deliver", { deliverable }, seller.key);
    expect(delivered.status).toBe(200);
    expect(await json(delivered)).toMatchObject({
      success: true,
      state: "DELIVERED",
      deliverable_hash: keccak256(toBytes(deliverable)),
      dispute_window_hours: 24,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      delivered_at: expect.any(String),
    });
    expect(await stateOf(id)).toBe("DELIVERED");

    const feeBefore = await usdcOf(feeRecipient);
    const released = await move(id, "release", {}, buyer.key);
    expect(released.status).toBe(200);
    const fee = (PRICE * feeBps) / 10_000n;
    expect(await json(released)).toMatchObject({
      state: "RELEASED",
      seller_received_wei: (PRICE - fee).toString(),
      fee_wei: fee.toString(),
    });
    expect(await stateOf(id)).toBe("RELEASED");
    expect(await usdcOf(seller.wallet)).toBe(PRICE - fee);
    expect(await usdcOf(feeRecipient)).toBe(feeBefore + fee);
    // Hosted agents never needed ETH.
    expect(await market.publicClient.getBalance({ address: seller.wallet })).toBe(0n);
  });

  it("the buyer refunds before delivery and gets everything back", async () => {
    const seller = await hosted("seller");
    const { buyer, id } = await fundedPurchase(seller);
    const refunded = await move(id, "refund", {}, buyer.key);
    expect(refunded.status).toBe(200);
    expect(await json(refunded)).toMatchObject({ state: "REFUNDED", refunded_wei: PRICE.toString() });
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC);
  });

  it("either party disputes a delivery; the buyer may still release", async () => {
    const seller = await hosted("seller");
    const { buyer, id } = await fundedPurchase(seller);
    await move(id, "deliver", { deliverable: "half done" }, seller.key);
    const disputed = await move(id, "dispute", { reason: "Half of it is missing" }, buyer.key);
    expect(disputed.status).toBe(200);
    expect(await json(disputed)).toMatchObject({ state: "DISPUTED" });
    expect(await stateOf(id)).toBe("DISPUTED");
    expect((await move(id, "release", {}, buyer.key)).status).toBe(200);
  });

  it("illegal moves are 409 with the state, wrong parties 403, and nothing changes", async () => {
    const seller = await hosted("seller");
    const { buyer, id } = await fundedPurchase(seller);
    const stranger = await hosted("stranger");
    const release = await move(id, "release", {}, buyer.key);
    expect(release.status).toBe(409);
    expect(await json(release)).toMatchObject({ state: "FUNDED", transaction_id: id });
    expect((await move(id, "deliver", { deliverable: "x" }, buyer.key)).status).toBe(403);
    // The seller may release only a DELIVERED escrow after its dispute window (payouts.test.ts).
    expect((await move(id, "release", {}, seller.key)).status).toBe(409);
    for (const [action, body] of [
      ["deliver", { deliverable: "x" }],
      ["release", {}],
      ["refund", {}],
      ["dispute", { reason: "x" }],
    ] as const) {
      expect((await move(id, action, body, stranger.key)).status, action).toBe(403);
    }
    expect((await move(id, "deliver", { deliverable: "x" }, "")).status).toBe(401);
    expect(
      (await move("6f1c2e9a-3b4d-4c5e-8f70-123456789abc", "deliver", { deliverable: "x" }, seller.key)).status,
    ).toBe(404);
    expect((await move("nope", "release", {}, buyer.key)).status).toBe(404);
    for (const body of [
      {},
      { deliverable: "" },
      { deliverable: 5 },
      { deliverable: "x", deliverable_url: "ftp://files/x" },
      { deliverable: "x", deliverable_url: 5 },
      { deliverable: "x", agent_id: "seller" },
    ]) {
      expect((await move(id, "deliver", body, seller.key)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await move(id, "dispute", { reason: "   " }, buyer.key)).status).toBe(400);
    expect(await stateOf(id)).toBe("FUNDED");
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - PRICE);
    // Refunded once, then every move is 409.
    expect((await move(id, "refund", {}, buyer.key)).status).toBe(200);
    expect((await move(id, "refund", {}, buyer.key)).status).toBe(409);
    expect((await move(id, "deliver", { deliverable: "late" }, seller.key)).status).toBe(409);
  });
});

describe("an external seller", () => {
  it("gets the deliver call, sends it, and completes with the tx_hash, once", async () => {
    const seller = await registerWithWallet(t.app, "external seller", market.address(EXTERNAL_SELLER));
    const { buyer, id } = await fundedPurchase({ ...seller, wallet: market.address(EXTERNAL_SELLER) });
    const deliverable = "https://example.com/report.pdf";
    const first = await move(id, "deliver", { deliverable }, seller.key);
    expect(first.status).toBe(202);
    const { instructions } = await json(first);
    expect(instructions).toMatchObject({ chain_id: market.chainId, contract_address: market.escrow });
    expect(instructions.calls[0].args.deliverableHash).toBe(keccak256(toBytes(deliverable)));
    expect(instructions.typed_data.primaryType).toBe("Deliver");
    expect(await stateOf(id)).toBe("FUNDED");

    const wallet = market.accounts[EXTERNAL_SELLER]?.wallet;
    if (!wallet) throw new Error("no wallet");
    const hash = await wallet.sendTransaction({ to: instructions.calls[0].to, data: instructions.calls[0].data });
    await market.publicClient.waitForTransactionReceipt({ hash });

    // A tx_hash of another move, or another deliverable, is refused.
    const wrong = await move(id, "deliver", { deliverable: "something else", tx_hash: hash }, seller.key);
    expect(wrong.status).toBe(400);
    const done = await move(id, "deliver", { deliverable, tx_hash: hash }, seller.key);
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ state: "DELIVERED", tx_hash: hash });
    const replay = await move(id, "deliver", { deliverable, tx_hash: hash as Hex }, seller.key);
    expect(replay.status).toBe(409);

    // The hosted buyer releases; the external seller is paid on chain.
    const before = await usdcOf(market.address(EXTERNAL_SELLER));
    expect((await move(id, "release", {}, buyer.key)).status).toBe(200);
    expect(await usdcOf(market.address(EXTERNAL_SELLER))).toBe(before + PRICE - (PRICE * feeBps) / 10_000n);
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.deliverables WHERE transaction_id = ${id}`,
    );
    // The refused call with another deliverable stored nothing.
    expect(rows[0]?.n).toBe(1);
  });

  it("delivers gasless: signs the typed data, the relayer submits it; the seller spends no ETH", async () => {
    const signer = market.accounts[GASLESS_SELLER]?.account;
    if (!signer?.signTypedData) throw new Error("no local account");
    const seller = await registerWithWallet(t.app, "gasless seller", market.address(GASLESS_SELLER));
    const { id } = await fundedPurchase({ ...seller, wallet: market.address(GASLESS_SELLER) });
    const deliverable = "Signed, not sent";
    const first = await json(await move(id, "deliver", { deliverable }, seller.key));
    const typed = first.instructions.typed_data;
    const signature = await signer.signTypedData({
      ...typed,
      message: { ...typed.message, nonce: BigInt(typed.message.nonce), sigDeadline: BigInt(typed.message.sigDeadline) },
    });
    const ethBefore = await market.publicClient.getBalance({ address: market.address(GASLESS_SELLER) });
    const signed = { signature, nonce: typed.message.nonce, sig_deadline: typed.message.sigDeadline };
    const done = await move(id, "deliver", { deliverable, signed }, seller.key);
    expect(done.status).toBe(200);
    expect(await json(done)).toMatchObject({ state: "DELIVERED", deliverable_hash: keccak256(toBytes(deliverable)) });
    expect(await market.publicClient.getBalance({ address: market.address(GASLESS_SELLER) })).toBe(ethBefore);
    // The same signature again: the escrow refuses it (the nonce is used, and it is delivered).
    expect((await move(id, "deliver", { deliverable, signed }, seller.key)).status).toBe(409);
    // A malformed signature, or both proofs at once, is a 400.
    const other = await fundedPurchase({ ...seller, wallet: market.address(GASLESS_SELLER) });
    const bad = { ...signed, signature: `0x${"11".repeat(65)}` };
    expect((await move(other.id, "deliver", { deliverable, signed: bad }, seller.key)).status).toBe(400);
    expect(
      (await move(other.id, "deliver", { deliverable, signed, tx_hash: `0x${"ab".repeat(32)}` }, seller.key)).status,
    ).toBe(400);
    expect(await stateOf(other.id)).toBe("FUNDED");
  });
});
