import { eq } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
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
  uniqueWord,
} from "../../../test/harness.ts";
import { agents } from "../../db/schema.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";
import { refreshAgentRecords } from "../agents/agent-records.ts";
import { refreshKeptTiers } from "./kept-tiers.ts";

/*
 * The kept tiers on the suite's real chain, indexer and Postgres: a release's parties get theirs
 * when the notifier reads it, browse names the kept tier, a full refresh mends a tier set wrong,
 * and an external wallet with a record gets its tier when its agent registers.
 */

const PRICE = 2_000_000n;
let t: TestApp;
let notifier: ReturnType<typeof createEscrowEventNotifier>;
beforeAll(async () => {
  t = await testApp();
  notifier = createEscrowEventNotifier({ db: t.db, chainId: t.config.chainId, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

async function keptTier(agentId: string) {
  const [row] = await t.db.select({ tier: agents.reputationTier }).from(agents).where(eq(agents.id, agentId));
  return row?.tier;
}

async function keptFigures(agentId: string) {
  const [row] = await t.db
    .select({ ratedDeals: agents.ratedDeals, successPercent: agents.successPercent })
    .from(agents)
    .where(eq(agents.id, agentId));
  return row;
}

/** The tier browse names the seller of a new listing by. */
async function browsedTier(seller: { id: string; key: string }) {
  const word = uniqueWord();
  await createListing(t.app, seller, { title: `Tier of ${word}` });
  const { listings } = await json(await get(t.app, `/api/listings?keyword=${word}`));
  expect(listings).toHaveLength(1);
  return listings[0].agent.reputation_tier;
}

const profileTier = async (agentId: string) => (await json(await get(t.app, `/api/agents/${agentId}`))).reputation_tier;

describe("kept reputation tiers", () => {
  it("a release's parties get theirs when the notifier reads it; browse names it; a full refresh mends one set wrong", async () => {
    const seller = await registerHosted(t.app, "kept seller");
    const buyer = await registerHosted(t.app, "kept buyer", 10n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
    expect(bought.state).toBe("FUNDED");
    const id = bought.transaction_id;
    const deliver = await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key);
    expect(deliver.status).toBe(200);
    expect((await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key)).status).toBe(200);
    // The record has the release (the API answered once the indexer had it); the card follows the notifier.
    expect(await profileTier(seller.id)).toBe("RELIABLE");

    while ((await notifier.tick()) > 0);
    expect(await keptTier(seller.id)).toBe("RELIABLE");
    expect(await keptTier(buyer.id), "the buyer's record has the release too").toBe("RELIABLE");
    expect(await browsedTier(seller)).toBe("RELIABLE");

    expect(await keptFigures(seller.id), "one clean release: 100 % over 1 rated deal").toEqual({
      ratedDeals: 1,
      successPercent: 100,
    });

    await t.db
      .update(agents)
      .set({ reputationTier: "VETERAN", ratedDeals: 9, successPercent: 1 })
      .where(eq(agents.id, seller.id));
    expect(await browsedTier(seller), "browse reads the kept tier").toBe("VETERAN");
    expect(await refreshKeptTiers(t.db)).toBeGreaterThanOrEqual(1);
    expect(await keptTier(seller.id)).toBe("RELIABLE");
    expect(await keptFigures(seller.id), "the figures are mended with the tier").toEqual({
      ratedDeals: 1,
      successPercent: 100,
    });
    // Nothing else differed from its record: a second refresh changes nothing.
    expect(await refreshKeptTiers(t.db)).toBe(0);
    expect(await refreshKeptTiers(t.db, {})).toBe(0);
    await refreshAgentRecords(t.db, t.config.chainId);
    expect(await keptTier(seller.id), "a full refresh of the records keeps it").toBe("RELIABLE");

    // The seller's wallet, given up by its agent, registered anew as an external agent's: the
    // escrows it settled were the old agent's transactions, never the new agent's.
    await t.db.update(agents).set({ walletAddress: newWallet().address }).where(eq(agents.id, seller.id));
    const wallet = seller.wallet;
    const heir = await registerWithWallet(t.app, "heir", wallet);
    expect(await profileTier(heir.id)).toBe("NEWCOMER");
    while ((await notifier.tick()) > 0);
    await refreshAgentRecords(t.db, t.config.chainId);
    expect(await keptTier(heir.id)).toBe("NEWCOMER");
  });
});
