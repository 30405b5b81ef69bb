import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  databaseOfItsOwn,
  del,
  get,
  json,
  patch,
  post,
  registerHosted,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { createDatabase } from "../../db/client.ts";
import { profileChanges, profileDocs } from "../../db/schema.ts";
import { migrateDatabase } from "../../migrate.ts";
import { keepProfile, pruneProfileChanges } from "./kept-profiles.ts";

/*
 * Kept profiles on the suite's real chain, indexer and Postgres. After every kind of change a
 * profile shows, made through the API (the app's tables, and escrow events indexed from the chain,
 * DELIVERED among them, which changes nothing of the app's), the profile answered is the one built
 * from the tables then; between changes it is the kept one. A kept profile built before a change
 * and stored after it (a slow builder) is not served, nor one built before the oldest change kept.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;
const PRICE = 2_000_000n;
/** A body no build writes: answered only from the kept profile. */
const MARK = { kept: "marked" };

const profileOf = async (id: string) => {
  const response = await get(t.app, `/api/agents/${id}`);
  expect(response.status).toBe(200);
  return json(response);
};
const keptRow = async (id: string) => (await t.db.select().from(profileDocs).where(eq(profileDocs.agentId, id)))[0];
const builtNow = async (id: string) => {
  await t.db.delete(profileDocs).where(eq(profileDocs.agentId, id));
  return profileOf(id);
};
const mark = (id: string) =>
  t.db
    .update(profileDocs)
    .set({ body: JSON.stringify(MARK) })
    .where(eq(profileDocs.agentId, id));

/**
 * The profile answered now (kept or built again) is the one built from the tables now; once built,
 * it is kept and the next read answers the kept one.
 */
async function expectCurrent(...agents: Agent[]) {
  for (const agent of agents) {
    const answered = await profileOf(agent.id);
    expect(answered).toEqual(await builtNow(agent.id));
    await mark(agent.id);
    expect(await profileOf(agent.id)).toEqual(MARK);
    await builtNow(agent.id);
  }
}

const move = async (id: string, action: string, body: unknown, key: string) =>
  expect((await post(t.app, `/api/transactions/${id}/${action}`, body, key)).status).toBe(200);

async function bought(seller: Agent, buyer: Agent): Promise<string> {
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const answer = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(answer.state).toBe("FUNDED");
  return answer.transaction_id;
}

describe("kept profiles", () => {
  it("answer what the tables and the indexed chain show after every kind of change", async () => {
    const seller = await registerHosted(t.app, "kept seller");
    const buyer = await registerHosted(t.app, "kept buyer", 20n * USDC);
    await expectCurrent(seller, buyer);

    // The agent itself: GET /me answers the kept public profile with the own fields.
    expect((await patch(t.app, "/api/agents/me", { bio: "makes things" }, seller.key)).status).toBe(200);
    await expectCurrent(seller);
    const own = await json(await get(t.app, "/api/agents/me", seller.key));
    expect(own).toMatchObject({
      ...(await profileOf(seller.id)),
      is_paused: false,
      hosted: true,
      total_spent_wei: "0",
    });
    // Its own fields alone: GET /me answers each change, from the change on (the kept own fields
    // were current before it).
    for (const change of [
      { is_paused: true },
      { metadata: { plan: "kept" } },
      { webhook_url: "http://127.0.0.1:9/kept" },
      { is_paused: false, webhook_url: null },
    ]) {
      expect(await json(await get(t.app, "/api/agents/me", seller.key))).not.toMatchObject(change);
      expect(await json(await patch(t.app, "/api/agents/me", change, seller.key))).toMatchObject(change);
      expect(await json(await get(t.app, "/api/agents/me", seller.key))).toMatchObject(change);
    }

    // Its listings: a new one, a new price, one taken down.
    const listing = await createListing(t.app, seller, { title: "First kept" });
    await expectCurrent(seller);
    expect((await patch(t.app, `/api/listings/${listing.id}`, { price_wei: "7000000" }, seller.key)).status).toBe(200);
    await expectCurrent(seller);
    expect((await del(t.app, `/api/listings/${listing.id}`, seller.key)).status).toBe(200);
    await expectCurrent(seller);

    // A purchase (a transaction, then its escrow funded on chain), delivery (the chain only), release.
    const released = await bought(seller, buyer);
    await expectCurrent(seller, buyer);
    await move(released, "deliver", { deliverable: "done" }, seller.key);
    expect((await profileOf(seller.id)).recent_transactions[0]).toMatchObject({ id: released, state: "DELIVERED" });
    await expectCurrent(seller, buyer);
    await move(released, "release", {}, buyer.key);
    const afterRelease = await profileOf(seller.id);
    expect(afterRelease.recent_transactions[0]).toMatchObject({ id: released, state: "RELEASED" });
    expect(BigInt(afterRelease.total_earned_wei)).toBeGreaterThan(0n);
    await expectCurrent(seller, buyer);

    // The buyer renamed: the seller's transactions name it.
    expect((await patch(t.app, "/api/agents/me", { name: "kept buyer renamed" }, buyer.key)).status).toBe(200);
    expect((await profileOf(seller.id)).recent_transactions[0].buyer.name).toBe("kept buyer renamed");
    await expectCurrent(seller);

    // A dispute and its ruling.
    const disputed = await bought(seller, buyer);
    await move(disputed, "deliver", { deliverable: "half" }, seller.key);
    await move(disputed, "dispute", { reason: "half done" }, buyer.key);
    await expectCurrent(seller, buyer);
    expect(
      (await post(t.app, `/api/transactions/${disputed}/resolve`, { seller_bps: 5_000 }, ARBITER_API_KEY)).status,
    ).toBe(200);
    await expectCurrent(seller, buyer);
  });

  it("are not served when built before a change and stored after it, nor when built before the changes kept", async () => {
    const seller = await registerHosted(t.app, "raced seller");
    const buyer = await registerHosted(t.app, "raced buyer", 10n * USDC);
    await profileOf(seller.id);
    const before = await keptRow(seller.id);
    if (!before) throw new Error("the profile was not kept");

    // A slow builder's profile, from before a new listing, stored after it: the listing shows.
    const listing = await createListing(t.app, seller, { title: "After the build" });
    await keepProfile(t.db, before);
    expect((await profileOf(seller.id)).listings.map((row: { id: string }) => row.id)).toEqual([listing.id]);

    // The same on the chain's side: a profile from before a delivery (an escrow event, nothing of
    // the app's changes) stored after it. Its app side is current: only the chain's tells.
    const id = await bought(seller, buyer);
    await profileOf(seller.id);
    const funded = await keptRow(seller.id);
    if (!funded) throw new Error("the profile was not kept");
    await move(id, "deliver", { deliverable: "late" }, seller.key);
    await t.db.update(profileDocs).set(funded).where(eq(profileDocs.agentId, seller.id));
    expect((await profileOf(seller.id)).recent_transactions[0]).toMatchObject({ id, state: "DELIVERED" });

    // Built before the oldest change kept (the API prunes them): it cannot tell what changed since.
    await profileOf(seller.id);
    await mark(seller.id);
    expect(await profileOf(seller.id)).toEqual(MARK);
    await t.db
      .update(profileDocs)
      .set({ builtVersion: sql`(SELECT min(${profileChanges.version}) FROM ${profileChanges}) - 2` })
      .where(eq(profileDocs.agentId, seller.id));
    expect(await profileOf(seller.id)).toEqual(await builtNow(seller.id));
  });

  it("prune the changes to the newest kept, and never the newest", async () => {
    const own = await databaseOfItsOwn(t, "profile_changes");
    const db = createDatabase(own.url, { max: 2 });
    try {
      await migrateDatabase(db);
      await db.insert(profileChanges).values(Array.from({ length: 5 }, () => ({ agentId: randomUUID() })));
      const versions = async () =>
        (await db.select().from(profileChanges)).map((row) => row.version).sort((a, b) => a - b);
      const [, , third, fourth, fifth] = await versions();
      await pruneProfileChanges(db, 3);
      expect(await versions()).toEqual([third, fourth, fifth]);
      await pruneProfileChanges(db, 0);
      expect(await versions()).toEqual([fifth]);
    } finally {
      await db.$client.end();
      await own.drop();
    }
  });
});
