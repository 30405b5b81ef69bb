import { eq, sql } from "drizzle-orm";
import pino from "pino";
import { type Address, getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keeperReleases, type Market, testMarket, USDC } from "../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  patch,
  post,
  registerHosted,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../test/harness.ts";
import { clientThatCannotBroadcast, harmlessCall } from "../../test/relayer-fixtures.ts";
import { decryptPrivateKey } from "../chain/custodial-wallet.ts";
import { createHostedSender } from "../chain/hosted-sender.ts";
import { agents } from "../db/schema.ts";
import { createEscrowEventNotifier } from "../notifications/escrow-event-notifier.ts";
import { createKeeper } from "./keeper.ts";

/*
 * The keeper on the suite's real chain, with the chain's clock moved forward: auto-release of a
 * delivered escrow (a bounty or a FIXED purchase) after its dispute window and never of a disputed
 * one, refund of an expired escrow, re-opening of a lapsed bounty claim, refund and delisting of
 * an expired unclaimed bounty. Sends nothing from dev accounts (the relayer pays the gas).
 */
const REWARD = 2_000_000n;
let t: TestApp;
let market: Market;
let keeper: ReturnType<typeof createKeeper>;
let notifier: ReturnType<typeof createEscrowEventNotifier>;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  keeper = createKeeper({ db: t.db, config: t.config, ...t.services, logger: pino({ level: "silent" }) });
  notifier = createEscrowEventNotifier({ db: t.db, chainId: t.config.chainId, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

interface Agent {
  id: string;
  key: string;
  wallet: Address;
}

const usdcOf = usdcBalance;
const stateOf = async (id: string) => (await json(await get(t.app, `/api/transactions/${id}`))).state;

const hosted = (usdc = 0n): Promise<Agent> => registerHosted(t.app, "hosted", usdc);

/** The fee the escrow of transaction `id` keeps on release, from its own fee_bps. */
async function feeOf(id: string, amount: bigint): Promise<bigint> {
  const { rows } = await t.db.execute<{ fee_bps: number }>(
    sql`SELECT fee_bps FROM chain.escrow WHERE chain_id = ${t.config.chainId} AND uuid = ${id}`,
  );
  if (rows[0] === undefined) throw new Error(`no escrow for ${id}`);
  return (amount * BigInt(rows[0].fee_bps)) / 10_000n;
}

/** `agent`'s notifications of `kind` about transaction `id`, after the notifier has read every indexed event. */
async function notified(agent: Agent, kind: string, id: string) {
  while ((await notifier.tick()) > 0);
  const body = await json(await get(t.app, "/api/notifications?limit=100", agent.key));
  return (body.notifications as { kind: string; payload: Record<string, unknown> }[]).filter(
    (n) => n.kind === kind && n.payload.transaction_id === id,
  );
}

/** A hosted buyer's purchase of a hosted seller's FIXED listing, delivered by the seller. */
async function deliveredPurchase() {
  const seller = await hosted();
  const buyer = await hosted(10n * USDC);
  const listing = await createListing(t.app, seller, { price_wei: REWARD.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state, "bought").toBe("FUNDED");
  const id = bought.transaction_id as string;
  const delivered = await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "the work" }, seller.key);
  expect(delivered.status, "delivered").toBe(200);
  return { seller, buyer, id };
}

async function bounty(poster: Agent, fields: Record<string, unknown> = {}) {
  const response = await post(
    t.app,
    "/api/listings",
    {
      agent_id: poster.id,
      title: `Bounty ${uniqueWord()}`,
      description: "x",
      price_wei: REWARD.toString(),
      listing_type: "BOUNTY",
      ...fields,
    },
    poster.key,
  );
  expect(response.status).toBe(201);
  return json(response);
}

describe("keeper", () => {
  it("releases a delivered bounty once its dispute window has closed, not before", async () => {
    const poster = await hosted(10n * USDC);
    const hunter = await hosted();
    const posted = await bounty(poster);
    const id = posted.funding.transaction_id;
    expect((await post(t.app, `/api/listings/${posted.id}/claim`, {}, hunter.key)).status).toBe(200);
    expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, hunter.key)).status).toBe(
      200,
    );
    expect((await keeper.runOnce()).released).not.toContain(id);
    expect(await stateOf(id)).toBe("DELIVERED");

    await market.increaseTime(t.config.disputeWindowSeconds + 60);
    expect(await keeperReleases(keeper, id)).toBe(true);
    expect(await stateOf(id)).toBe("RELEASED");
    expect(await usdcOf(hunter.wallet)).toBe(REWARD - (await feeOf(id, REWARD)));
    // Nothing left to do for it.
    expect((await keeper.runOnce()).released).not.toContain(id);
  });

  it("releases a delivered FIXED purchase its buyer left alone once the window has closed: the seller is paid amount − fee, both parties hear of it", async () => {
    const { seller, buyer, id } = await deliveredPurchase();
    const buyerBalance = await usdcOf(buyer.wallet);
    expect((await keeper.runOnce()).released, "released before the window").not.toContain(id);
    expect(await stateOf(id), "state before the window").toBe("DELIVERED");
    expect(await usdcOf(seller.wallet), "seller before the window").toBe(0n);

    await market.increaseTime(t.config.disputeWindowSeconds + 60);
    expect(await keeperReleases(keeper, id), "released after the window").toBe(true);
    const transaction = await json(await get(t.app, `/api/transactions/${id}`));
    expect(transaction, "the transaction after the release").toMatchObject({
      state: "RELEASED",
      auto_release_at: null,
      release_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await usdcOf(seller.wallet), "seller paid").toBe(REWARD - (await feeOf(id, REWARD)));
    expect(await usdcOf(buyer.wallet), "buyer's balance").toBe(buyerBalance);

    const [toBuyer, ...moreToBuyer] = await notified(buyer, "payment.released", id);
    expect(moreToBuyer, "one notification to the buyer").toEqual([]);
    expect(toBuyer?.payload, "the buyer's notification").toMatchObject({
      released_after_window: true,
      message: expect.stringMatching(/released automatically after the dispute window/i),
      tx_hash: transaction.release_tx_hash,
    });
    const [toSeller, ...moreToSeller] = await notified(seller, "payment.released", id);
    expect(moreToSeller, "one notification to the seller").toEqual([]);
    expect(toSeller?.payload, "the seller's notification").toMatchObject({
      released_after_window: true,
      message: expect.stringMatching(/^Paid/),
      amount_wei: (REWARD - (await feeOf(id, REWARD))).toString(),
    });
    // Nothing left to do for it.
    expect((await keeper.runOnce()).released, "released again").not.toContain(id);
  });

  it("never releases a disputed delivery, however long the window is past", async () => {
    const { seller, buyer, id } = await deliveredPurchase();
    const disputed = await post(t.app, `/api/transactions/${id}/dispute`, { reason: "Not the work asked" }, buyer.key);
    expect(disputed.status, "disputed").toBe(200);
    await market.increaseTime(t.config.disputeWindowSeconds + 60);
    expect(await keeperReleases(keeper, id), "released").toBe(false);
    expect(await stateOf(id), "state").toBe("DISPUTED");
    expect(await usdcOf(seller.wallet), "seller's balance").toBe(0n);
    expect(await usdcOf(buyer.wallet), "buyer's balance").toBe(10n * USDC - REWARD);
  });

  it("refunds an undelivered purchase past its deadline", async () => {
    const seller = await hosted();
    const buyer = await hosted(10n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: REWARD.toString() });
    const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, { deadline_hours: 1 }, buyer.key));
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC - REWARD);
    await market.increaseTime(2 * 3600);
    expect((await keeper.runOnce()).refunded).toContain(bought.transaction_id);
    expect(await stateOf(bought.transaction_id)).toBe("REFUNDED");
    expect(await usdcOf(buyer.wallet)).toBe(10n * USDC);
  });

  it("re-opens a bounty whose claimant missed the deadline; another agent claims it", async () => {
    const poster = await hosted(10n * USDC);
    const posted = await bounty(poster, { deadline_hours: 1 });
    const id = posted.funding.transaction_id;
    const first = await hosted();
    expect((await post(t.app, `/api/listings/${posted.id}/claim`, {}, first.key)).status).toBe(200);
    await market.increaseTime(2 * 3600);
    expect((await keeper.runOnce()).reopened).toContain(id);
    expect((await json(await get(t.app, `/api/transactions/${id}`))).seller).toBeNull();
    expect(await usdcOf(poster.wallet)).toBe(10n * USDC - REWARD);
    const second = await hosted();
    expect((await post(t.app, `/api/listings/${posted.id}/claim`, {}, second.key)).status).toBe(200);
    expect((await keeper.runOnce()).reopened).not.toContain(id);
  });

  it("refunds and delists a re-opened bounty once the bounty itself has expired; a later claim is refused", async () => {
    const poster = await hosted(10n * USDC);
    const posted = await bounty(poster, { deadline_hours: 1, expires_in_hours: 100 });
    const id = posted.funding.transaction_id;
    const first = await hosted();
    expect((await post(t.app, `/api/listings/${posted.id}/claim`, {}, first.key)).status).toBe(200);
    await market.increaseTime(2 * 3600);
    expect((await keeper.runOnce()).reopened).toContain(id);
    // Re-opened before the bounty's expiry: it waits for the next claim.
    expect((await keeper.runOnce()).refunded).not.toContain(id);
    expect(await usdcOf(poster.wallet)).toBe(10n * USDC - REWARD);

    await market.increaseTime(100 * 3600);
    const late = await hosted();
    const refused = await post(t.app, `/api/listings/${posted.id}/claim`, {}, late.key);
    expect(refused.status).toBe(409);
    expect((await json(refused)).error).toMatch(/expired/);
    expect((await keeper.runOnce()).refunded).toContain(id);
    expect(await stateOf(id)).toBe("REFUNDED");
    expect(await usdcOf(poster.wallet)).toBe(10n * USDC);
    expect((await json(await get(t.app, `/api/listings/${posted.id}`))).is_active).toBe(false);
  });

  it("refunds and delists a bounty nobody claimed before it expired", async () => {
    const poster = await hosted(10n * USDC);
    const posted = await bounty(poster, { expires_in_hours: 1 });
    await market.increaseTime(2 * 3600);
    expect((await keeper.runOnce()).refunded).toContain(posted.funding.transaction_id);
    expect(await usdcOf(poster.wallet)).toBe(10n * USDC);
    expect(await json(await get(t.app, `/api/listings/${posted.id}`))).toMatchObject({
      is_active: false,
      state: "closed",
    });
    // Its reward is gone back to the poster: it is never listed again.
    const relisted = await patch(t.app, `/api/listings/${posted.id}`, { is_active: true }, poster.key);
    expect(relisted.status).toBe(409);
    expect((await json(relisted)).code).toBe("listing_closed");
  });

  it("sends a hosted wallet's transaction whose broadcast failed, without waiting for the agent", async () => {
    const agent = await registerHosted(t.app, "hosted wallet");
    const [row] = await t.db.select().from(agents).where(eq(agents.id, agent.id));
    const wallet = getAddress(agent.wallet);
    const account = privateKeyToAccount(
      decryptPrivateKey(row?.encryptedPrivateKey as string, wallet, t.config.masterKey),
    );
    // The same outbox as the keeper's (this chain instance), behind an endpoint that cannot broadcast.
    const startBlock = BigInt(t.services.chain.deployment.contracts.AgentEscrow.startBlock);
    const instance = (await t.services.chain.publicClient.getBlock({ blockNumber: startBlock })).hash;
    const failing = createHostedSender({
      db: t.db,
      publicClient: clientThatCannotBroadcast(),
      chainId: t.config.chainId,
      chainInstance: instance,
      platformRelayer: t.services.relayer,
    });
    const sent = await failing.submit(account, harmlessCall(7));
    expect(await t.services.hostedSender.outboxStatus(sent.txHash)).toBe("signed");
    expect(await t.services.hostedSender.openWallets()).toContain(wallet);

    const report = await keeper.runOnce();
    expect(report.resumed).toBeGreaterThanOrEqual(1);
    expect(await t.services.hostedSender.outboxStatus(sent.txHash)).toBe("mined");
    const receipt = await t.services.chain.publicClient.getTransactionReceipt({ hash: sent.txHash });
    expect(receipt.status).toBe("success");
    expect(await t.services.hostedSender.openWallets()).not.toContain(wallet);
  });
});

describe("the keeper's offers", () => {
  it("records every live offer past its time EXPIRED, once, and tells both parties", async () => {
    const seller = await hosted();
    const buyer = await hosted();
    const listing = await createListing(t.app, seller, { price_wei: "5000000" });
    const make = async (price: string) =>
      (await json(await post(t.app, `/api/listings/${listing.id}/offers`, { price_wei: price }, buyer.key))).offer;
    const waiting = await make("3000000");
    await post(t.app, `/api/offers/${waiting.id}/accept`, {}, seller.key);
    await t.db.execute(sql`UPDATE app.offers SET expires_at = now() - interval '1 second' WHERE id = ${waiting.id}`);

    expect((await keeper.runOnce()).expiredOffers).toBeGreaterThanOrEqual(1);
    const [row] = (await t.db.execute<{ status: string }>(sql`SELECT status FROM app.offers WHERE id = ${waiting.id}`))
      .rows;
    expect(row?.status).toBe("EXPIRED");
    for (const agent of [buyer, seller]) {
      const { notifications } = await json(await get(t.app, "/api/notifications", agent.key));
      const expired = notifications.filter(
        (n: { kind: string; payload: { offer_id?: string } }) =>
          n.kind === "offer.expired" && n.payload.offer_id === waiting.id,
      );
      expect(expired).toHaveLength(1);
    }
    // Already recorded: a later run does not expire it again, and a new offer of the buyer may follow.
    await keeper.runOnce();
    const { rows } = await t.db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM app.offer_moves WHERE offer_id = ${waiting.id} AND action = 'expired'`,
    );
    expect(rows[0]?.n).toBe(1);
    expect((await make("3500000")).status).toBe("OPEN");
  });
});
