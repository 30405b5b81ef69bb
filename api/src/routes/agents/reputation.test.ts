import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  post,
  registerAgent,
  registerHosted,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";

/*
 * Reputation on the suite's real chain, indexer and Postgres: figures from indexed escrows after
 * releases, a refund and a ruled dispute, and the verification that recomputes them from the
 * escrow's logs, including a drift of the kept figures, which it must report.
 */

const PRICE = 3_000_000n;
let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

async function bought(seller: Agent, buyer: Agent): Promise<string> {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const answer = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(answer.state).toBe("FUNDED");
  return answer.transaction_id;
}

const move = async (id: string, action: string, body: unknown, key: string) =>
  expect((await post(t.app, `/api/transactions/${id}/${action}`, body, key)).status).toBe(200);

describe("reputation", () => {
  it("a newcomer has zeros, and the chain agrees", async () => {
    const agent = await registerAgent(t.app, "newcomer");
    expect(await json(await get(t.app, `/api/agents/${agent.id}/reputation`))).toEqual({
      agent_id: agent.id,
      wallet_address: agent.wallet.address,
      completed_transactions: 0,
      refunded: 0,
      disputed: 0,
      total_volume_wei: "0",
      success_rate: 0,
      rated_deals: 0,
      reputation_tier: "NEWCOMER",
    });
    const verified = await json(await get(t.app, `/api/agents/${agent.id}/reputation/verify`));
    expect(verified).toMatchObject({ matches: true, mismatches: [] });
  });

  it("counts releases, refunds and a ruled dispute from indexed escrows; the logs give the same", async () => {
    const seller = await registerHosted(t.app, "track record seller");
    const buyer = await registerHosted(t.app, "track record buyer", 20n * USDC);
    for (let i = 0; i < 2; i++) {
      const id = await bought(seller, buyer);
      await move(id, "deliver", { deliverable: `work ${i}` }, seller.key);
      await move(id, "release", {}, buyer.key);
    }
    await move(await bought(seller, buyer), "refund", {}, buyer.key);
    const disputed = await bought(seller, buyer);
    await move(disputed, "deliver", { deliverable: "half" }, seller.key);
    await move(disputed, "dispute", { reason: "half done" }, buyer.key);
    const ruling = await post(t.app, `/api/transactions/${disputed}/resolve`, { seller_bps: 5_000 }, ARBITER_API_KEY);
    expect(ruling.status).toBe(200);
    const { seller_received_wei, fee_wei } = (await json(ruling)).resolution;
    const volume = 2n * PRICE + BigInt(seller_received_wei) + BigInt(fee_wei);

    const reputation = await json(await get(t.app, `/api/agents/${seller.id}/reputation`));
    expect(reputation).toMatchObject({
      completed_transactions: 3,
      refunded: 1,
      disputed: 1,
      total_volume_wei: volume.toString(),
      // Two clean releases over four rated deals: the refund and the ruling count against it.
      success_rate: 0.5,
      rated_deals: 4,
      reputation_tier: "NEWCOMER",
    });
    // Browse names the seller by its kept figures, which follow once the notifier has read the
    // settlements (as the running API's does every NOTIFY_INTERVAL_MS).
    const notifier = createEscrowEventNotifier({
      db: t.db,
      chainId: t.config.chainId,
      logger: pino({ level: "silent" }),
    });
    while ((await notifier.tick()) > 0);
    const word = uniqueWord();
    await createListing(t.app, seller, { title: `Tiered ${word}` });
    const browsed = await json(await get(t.app, `/api/listings?keyword=${word}`));
    expect(browsed.listings.map((listing: { agent: unknown }) => listing.agent)).toEqual([
      { id: seller.id, name: "track record seller", reputation_tier: "NEWCOMER", success_rate: 50, rated_deals: 4 },
    ]);
    // The buyer took part in the same escrows.
    expect(await json(await get(t.app, `/api/agents/${buyer.id}/reputation`))).toMatchObject({
      completed_transactions: 3,
      total_volume_wei: volume.toString(),
    });

    const verified = await json(await get(t.app, `/api/agents/${seller.id}/reputation/verify`));
    expect(verified).toMatchObject({ agent_id: seller.id, matches: true, mismatches: [] });
    expect(verified.chain).toEqual(verified.indexed);
    expect(verified.chain).toMatchObject({ completed_transactions: 3, total_volume_wei: volume.toString() });
    expect(BigInt(verified.block_number)).toBeGreaterThan(0n);
  });

  it("reports kept figures that drifted from the chain", async () => {
    const seller = await registerHosted(t.app, "drifted seller");
    const buyer = await registerHosted(t.app, "drifted buyer", 10n * USDC);
    const id = await bought(seller, buyer);
    await move(id, "deliver", { deliverable: "done" }, seller.key);
    await move(id, "release", {}, buyer.key);
    // The record is kept once it is read.
    expect((await json(await get(t.app, `/api/agents/${seller.id}/reputation`))).completed_transactions).toBe(1);
    // What a missed or doubled count would leave: one release too many in the kept record.
    const drift = (by: number) =>
      t.db.execute(
        sql`UPDATE app.agent_records SET released_as_seller = released_as_seller + ${by} WHERE agent_id = ${seller.id}`,
      );
    await drift(1);
    try {
      const verified = await json(await get(t.app, `/api/agents/${seller.id}/reputation/verify`));
      expect(verified.matches).toBe(false);
      expect(verified.mismatches).toContain("completed_transactions");
      expect(verified.indexed.completed_transactions).toBe(2);
      expect(verified.chain.completed_transactions).toBe(1);
    } finally {
      await drift(-1);
    }
    expect((await json(await get(t.app, `/api/agents/${seller.id}/reputation/verify`))).matches).toBe(true);
  });

  it("unknown agents are 404", async () => {
    for (const path of ["reputation", "reputation/verify"]) {
      expect((await get(t.app, `/api/agents/6f1c2e9a-3b4d-4c5e-8f70-123456789abc/${path}`)).status).toBe(404);
      expect((await get(t.app, `/api/agents/not-a-uuid/${path}`)).status).toBe(404);
    }
  });
});
