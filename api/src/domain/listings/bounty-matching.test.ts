import { and, eq, sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../../test/escrow.ts";
import { get, json, patch, post, registerHosted, type TestApp, testApp, uniqueWord } from "../../../test/harness.ts";
import { listings, notifications, webhookDeliveries } from "../../db/schema.ts";
import { createKeeper } from "../../keeper/keeper.ts";
import { apiPaths } from "../../routes/paths.ts";
import { bountyWords } from "./bounty-matching.ts";

/*
 * Push discovery (bounty-matching.ts): the words a bounty is matched on, and, through the API on
 * the suite's real chain and Postgres, who gets `bounty.matching` when a bounty is posted: a
 * matching agent (stream and webhook), not a non-matching one, not the poster, not one that opted
 * out, at most MATCHING_BOUNTIES_PER_HOUR an hour, once per bounty and price.
 */

describe("bountyWords", () => {
  it("lowercase words, their parts, adjacent pairs and the category", () => {
    const words = bountyWords({
      title: "Audit a Node.js service",
      description: "C++ bindings, Machine Learning. Solidity!",
      category: "coding",
    });
    for (const word of ["coding", "audit", "node.js", "node", "js", "c++", "c", "machine learning", "solidity"]) {
      expect(words, word).toContain(word);
    }
    expect(words).not.toContain("solidity!");
    expect(words).not.toContain("Audit");
  });
});

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ matchingBountiesPerHour: 2 });
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

async function withSkills(skills: string[], extra: Record<string, unknown> = {}) {
  const response = await post(t.app, "/api/agents/register", { name: "hunter", skills, ...extra });
  expect(response.status).toBe(201);
  const body = await json(response);
  return { id: body.agent.id as string, key: body.api_key as string };
}

async function postBounty(poster: Agent, fields: Record<string, unknown>) {
  const response = await post(
    t.app,
    "/api/listings",
    { agent_id: poster.id, description: "Some work", price_wei: "1000000", listing_type: "BOUNTY", ...fields },
    poster.key,
  );
  expect(response.status).toBe(201);
  return json(response);
}

async function matchingOf(agent: { id: string }) {
  return t.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.agentId, agent.id), eq(notifications.kind, "bounty.matching")))
    .orderBy(notifications.createdAt);
}

describe("bounty.matching", () => {
  it("reaches the agents whose skills match the title, description or category; not others, not the poster, not the opted out", async () => {
    const word = uniqueWord("skill");
    const poster = await registerHosted(t.app, "matching poster", 10n * USDC);
    await patch(t.app, "/api/agents/me", { skills: [word] }, poster.key);
    const byTitle = await withSkills([word.toUpperCase()], { webhook_url: "http://127.0.0.1:9/hook" });
    const byPair = await withSkills([`${word} tuning`]);
    const other = await withSkills([uniqueWord("other")]);
    const optedOut = await withSkills([word], { notify_matching_bounties: false });

    const bounty = await postBounty(poster, { title: `Need ${word} tuning done`, category: "design" });
    const [notice] = await matchingOf(byTitle);
    expect(notice?.payload).toEqual({
      listing_id: bounty.id,
      title: bounty.title,
      category: "design",
      price_wei: "1000000",
      price_usdc: "1.00",
      accepts_proposals: false,
      matched_skills: [word.toUpperCase()],
      claim_with: `POST /api/listings/${bounty.id}/claim`,
    });
    expect(await matchingOf(byPair)).toHaveLength(1);
    for (const agent of [other, optedOut, poster]) expect(await matchingOf(agent)).toEqual([]);
    // Through the stream's list and the webhook.
    const listed = await json(await get(t.app, "/api/notifications?limit=10", byTitle.key));
    expect(listed.notifications[0]).toMatchObject({ kind: "bounty.matching", payload: { listing_id: bounty.id } });
    const deliveries = await t.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.agentId, byTitle.id), eq(webhookDeliveries.notificationId, notice?.id ?? "")));
    expect(deliveries).toHaveLength(1);

    // The category matches too; proposals bounties name their proposal path.
    const designer = await withSkills([`${word}-design`, "DESIGN"]);
    const byCategory = await postBounty(poster, { title: "A logo", category: "design", accepts_proposals: true });
    const [categoryNotice] = (await matchingOf(designer)).filter(
      (n) => (n.payload as { listing_id: string }).listing_id === byCategory.id,
    );
    expect(categoryNotice?.payload).toMatchObject({
      matched_skills: ["DESIGN"],
      propose_with: `POST /api/listings/${byCategory.id}/proposals`,
    });
    // Opting in again: the next bounty reaches it.
    await patch(t.app, "/api/agents/me", { notify_matching_bounties: true }, optedOut.key);
    await postBounty(poster, { title: `More ${word}`, description: "again" });
    expect(await matchingOf(optedOut)).toHaveLength(1);
  });

  it("a telling lost to a crash after the post is made by the keeper's next run, once", async () => {
    const word = uniqueWord("healed");
    const poster = await registerHosted(t.app, "healed poster", 10n * USDC);
    const hunter = await withSkills([word]);
    const bounty = await postBounty(poster, { title: `${word} wanted` });
    expect(await matchingOf(hunter)).toHaveLength(1);
    // As if the process died after the bounty was listed and before its agents were told.
    await t.db
      .delete(notifications)
      .where(and(eq(notifications.agentId, hunter.id), eq(notifications.kind, "bounty.matching")));
    await t.db.update(listings).set({ matchingPriceWei: null }).where(eq(listings.id, bounty.id));
    const keeper = createKeeper({
      db: t.db,
      config: t.config,
      ...t.services,
      logger: pino({ level: "silent" }),
      paths: apiPaths,
    });
    expect((await keeper.runOnce()).announced).toContain(bounty.id);
    const [told] = await matchingOf(hunter);
    expect(told?.payload).toMatchObject({ listing_id: bounty.id, price_wei: "1000000" });
    // Told: the next run passes it by, and nobody hears twice.
    expect((await keeper.runOnce()).announced).not.toContain(bounty.id);
    expect(await matchingOf(hunter)).toHaveLength(1);
  });

  it("at most MATCHING_BOUNTIES_PER_HOUR an hour per agent; once per bounty and price", async () => {
    const word = uniqueWord("capped");
    const poster = await registerHosted(t.app, "capped poster", 10n * USDC);
    const hunter = await withSkills([word]);
    const posted = [];
    for (let i = 0; i < 3; i++) posted.push(await postBounty(poster, { title: `${word} job ${i}` }));
    const notices = await matchingOf(hunter);
    expect(notices.map((n) => (n.payload as { listing_id: string }).listing_id)).toEqual([posted[0].id, posted[1].id]);
    // An hour later the agent hears of the next one.
    await t.db
      .update(notifications)
      .set({ createdAt: sql`now() - interval '61 minutes'` })
      .where(and(eq(notifications.agentId, hunter.id), eq(notifications.kind, "bounty.matching")));
    // Delisted and listed again at the same price: told once only (the third was never told).
    await patch(t.app, `/api/listings/${posted[0].id}`, { is_active: false }, poster.key);
    await patch(t.app, `/api/listings/${posted[0].id}`, { is_active: true }, poster.key);
    expect(await matchingOf(hunter)).toHaveLength(2);
    await patch(t.app, `/api/listings/${posted[2].id}`, { is_active: false }, poster.key);
    await patch(t.app, `/api/listings/${posted[2].id}`, { is_active: true }, poster.key);
    expect(await matchingOf(hunter)).toHaveLength(3);
  });
});
