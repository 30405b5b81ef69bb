import { sql } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, indexed, testMarket, USDC } from "../../../test/escrow.ts";
import { createListing, get, json, post, registerHosted, type TestApp, testApp } from "../../../test/harness.ts";
import { refreshAgentRecords, transactionEscrowsSql } from "../../domain/agents/agent-records.ts";
import { formatUsdc } from "../../domain/shared/money.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";

/*
 * GET /api/stats/daily and GET /api/leaderboard on the suite's real chain, indexer and Postgres,
 * from escrows that hosted agents fund, release and refund through the API (the relayer sends;
 * no dev account does). The daily figures move by exactly what was funded and settled, per UTC day,
 * with /api/stats' definitions; the leaderboard counts a period's settlements only, so the chain's
 * clock is moved 8 days forward between two rounds of trades. Every figure is read from the kept
 * transactions' escrows, records and totals, which the running API's notifier keeps (records).
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

type Agent = Awaited<ReturnType<typeof registerHosted>>;

interface Day {
  date: string;
  volume_wei: string;
  volume_usdc: string;
  transactions: number;
}

/** Buys `seller`'s new listing as `buyer` (FUNDED); the transaction's id. */
async function bought(seller: Agent, buyer: Agent, price: bigint): Promise<string> {
  const listing = await createListing(t.app, seller, { price_wei: price.toString() });
  const answer = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(answer.state).toBe("FUNDED");
  return answer.transaction_id;
}

/** A sale delivered and released; what the seller received. */
async function sold(seller: Agent, buyer: Agent, price: bigint): Promise<bigint> {
  const id = await bought(seller, buyer, price);
  expect((await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "done" }, seller.key)).status).toBe(200);
  const released = await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key);
  expect(released.status).toBe(200);
  const { seller_received_wei, fee_wei } = await json(released);
  expect(BigInt(seller_received_wei) + BigInt(fee_wei)).toBe(price);
  return BigInt(seller_received_wei);
}

/** A sale refunded before delivery. */
async function refunded(seller: Agent, buyer: Agent, price: bigint): Promise<void> {
  const id = await bought(seller, buyer, price);
  expect((await post(t.app, `/api/transactions/${id}/refund`, {}, buyer.key)).status).toBe(200);
}

/** What the running API's escrow event notifier does every NOTIFY_INTERVAL_MS: the kept records follow. */
async function records(): Promise<void> {
  const notifier = createEscrowEventNotifier({
    db: t.db,
    chainId: t.config.chainId,
    logger: pino({ level: "silent" }),
  });
  while ((await notifier.tick()) > 0);
}

/** Waits until the indexer has the chain's newest block. */
async function indexerCaughtUp(): Promise<void> {
  await indexed(t.db, { blockNumber: await testMarket().publicClient.getBlockNumber() });
}

async function daily(days?: number): Promise<Day[]> {
  const response = await get(t.app, `/api/stats/daily${days === undefined ? "" : `?days=${days}`}`);
  expect(response.status).toBe(200);
  return (await json(response)).days;
}

/** The UTC day of the marketplace's clock: the later of the wall's and the last indexed block's. */
async function today(): Promise<string> {
  const { rows } = await t.db.execute<{ ts: string | null }>(
    sql`SELECT substring(latest_checkpoint from 1 for 10) AS ts FROM chain._ponder_checkpoint WHERE chain_id = ${t.config.chainId}`,
  );
  const seconds = Math.max(Math.floor(Date.now() / 1000), Number(rows[0]?.ts ?? 0));
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** What changed from `before` to `after`, summed over the days of `after` (a day that left the window had nothing new). */
function growth(before: Day[], after: Day[]) {
  const earlier = new Map(before.map((day) => [day.date, day]));
  let volume = 0n;
  let transactions = 0;
  for (const day of after) {
    volume += BigInt(day.volume_wei) - BigInt(earlier.get(day.date)?.volume_wei ?? 0);
    transactions += day.transactions - (earlier.get(day.date)?.transactions ?? 0);
  }
  return { volume, transactions };
}

describe("GET /api/stats/daily", () => {
  it("answers every day of the range, oldest first and today last, zeros included", async () => {
    await indexerCaughtUp();
    const days = await daily();
    expect(days).toHaveLength(30);
    expect(days.at(-1)?.date).toBe(await today());
    for (let i = 1; i < days.length; i++) {
      const gap = Date.parse(days[i]?.date as string) - Date.parse(days[i - 1]?.date as string);
      expect(gap, `${days[i - 1]?.date} → ${days[i]?.date}`).toBe(DAY * 1000);
    }
    for (const day of days) {
      expect(day.volume_wei).toMatch(/^\d+$/);
      expect(BigInt(day.volume_usdc.replace(".", ""))).toBe(BigInt(day.volume_wei) / 10_000n);
    }
    // The suite's chain is younger than 30 days of activity: some days are empty, and say so.
    expect(
      days.filter((day) => day.transactions === 0 && day.volume_wei === "0" && day.volume_usdc === "0.00").length,
    ).toBeGreaterThan(0);
    expect(await daily(1)).toHaveLength(1);
    expect(await daily(90)).toHaveLength(90);
  });

  it("grows by exactly what was funded and settled: a release counts its whole amount, a refund none", async () => {
    const seller = await registerHosted(t.app, "daily seller");
    const buyer = await registerHosted(t.app, "daily buyer", 20n * USDC);
    await indexerCaughtUp();
    await records();
    const before = await daily(90);
    await sold(seller, buyer, 3n * USDC);
    await refunded(seller, buyer, 2n * USDC);
    await bought(seller, buyer, 1n * USDC);
    await indexerCaughtUp();
    await records();
    const after = await daily(90);
    expect(growth(before, after)).toEqual({ volume: 3n * USDC, transactions: 3 });
    expect(after.at(-1)?.date).toBe(await today());
  });

  it("uses /api/stats' definitions: summed over the days, the same totals", async () => {
    await indexerCaughtUp();
    await records();
    // The transactions' escrows (escrows of other funders the suite sent count for nobody).
    const { rows } = await t.db.execute<{ first: string; escrows: number; settled: string }>(
      sql`SELECT min(e_funded_at)::text AS first, count(*)::int AS escrows,
        coalesce(sum(e_seller_payout + e_fee_paid) FILTER (WHERE e_status IN ('RELEASED', 'RESOLVED')), 0)::text AS settled
        FROM (${transactionEscrowsSql(t.config.chainId)}) own`,
    );
    const totals = rows[0];
    if (!totals) throw new Error("no escrow totals");
    const days = await daily(90);
    // Every escrow of the suite is younger than 90 days of its chain's clock.
    expect(Date.parse(days[0]?.date as string) / 1000).toBeLessThanOrEqual(Number(totals.first));
    expect(days.reduce((sum, day) => sum + day.transactions, 0)).toBe(totals.escrows);
    expect(days.reduce((sum, day) => sum + BigInt(day.volume_wei), 0n)).toBe(BigInt(totals.settled));
    await records();
    const stats = await json(await get(t.app, "/api/stats"));
    expect(stats.total_transactions).toBe(totals.escrows);
    expect(stats.total_volume_usd).toBe(formatUsdc(totals.settled));
    // A full refresh (every API start's, and every minute's) counts the same.
    await refreshAgentRecords(t.db, t.config.chainId);
    expect(await json(await get(t.app, "/api/stats"))).toEqual(stats);
  });

  it("refuses a range outside 1..90 days, or not a whole number: 400", async () => {
    for (const query of ["days=0", "days=91", "days=-1", "days=abc", "days=1.5"]) {
      const response = await get(t.app, `/api/stats/daily?${query}`);
      expect(response.status, query).toBe(400);
      expect(await json(response)).toMatchObject({ code: "invalid_request" });
    }
  });
});

interface Entry {
  rank: number;
  agent: { id: string; name: string; reputation_tier: string; hosted: boolean };
  earned_wei: string;
  earned_usdc: string;
  completed: number;
  success_rate: number;
  rated_deals: number;
}

async function board(query: string): Promise<{ period: string; sort: string; agents: Entry[] }> {
  const response = await get(t.app, `/api/leaderboard?${query}`);
  expect(response.status, query).toBe(200);
  return json(response);
}

/** The figures of one agent's entry, or undefined when it is not on the board. */
function figuresOf(entries: Entry[], agent: Agent) {
  const entry = entries.find((e) => e.agent.id === agent.id);
  return entry && { earned_wei: entry.earned_wei, completed: entry.completed, success_rate: entry.success_rate };
}

describe("GET /api/leaderboard", () => {
  const seller = { a: 0n, a2: 0n, b: 0n, x: 0n };
  let a: Agent;
  let b: Agent;
  let x: Agent;
  let y: Agent;

  beforeAll(async () => {
    // Large sales, so that these agents lead the month's board whatever else the suite sold.
    a = await registerHosted(t.app, "leader a", 35_000n * USDC);
    b = await registerHosted(t.app, "leader b");
    x = await registerHosted(t.app, "leader x", 40_001n * USDC);
    y = await registerHosted(t.app, "leader y", 30_002n * USDC);
    // Eight days ago: A sells to X, B's sale to X is refunded, X sells to A.
    seller.a = await sold(a, x, 40_000n * USDC);
    await refunded(b, x, 1n * USDC);
    seller.x = await sold(x, a, 35_000n * USDC);
    await testMarket().increaseTime(8 * DAY);
    // This week: B sells to Y, A sells to Y.
    seller.b = await sold(b, y, 30_000n * USDC);
    seller.a2 = await sold(a, y, 2n * USDC);
    await indexerCaughtUp();
    await records();
  });

  it("week: only this week's settlements, ranked by earnings, with their figures", async () => {
    const week = await board("period=week&sort=earned&limit=100");
    expect(week.period).toBe("week");
    expect(week.sort).toBe("earned");
    // Everything else the suite settled is more than 8 days old now.
    expect(week.agents.map((entry) => [entry.rank, entry.agent.id])).toEqual([
      [1, b.id],
      [2, a.id],
      [3, y.id],
    ]);
    expect(figuresOf(week.agents, b)).toEqual({ earned_wei: seller.b.toString(), completed: 1, success_rate: 1 });
    expect(figuresOf(week.agents, a)).toEqual({ earned_wei: seller.a2.toString(), completed: 1, success_rate: 1 });
    expect(figuresOf(week.agents, y), "a buyer: nothing earned, both purchases released and completed").toEqual({
      earned_wei: "0",
      completed: 2,
      success_rate: 1,
    });
    expect(figuresOf(week.agents, x), "X settled nothing this week").toBeUndefined();
    const first = week.agents[0] as Entry;
    expect(first.earned_usdc).toBe((seller.b / 10_000n).toString().replace(/(\d\d)$/, ".$1"));
    expect(first.agent).toMatchObject({
      id: b.id,
      name: "leader b",
      hosted: true,
      reputation_tier: expect.any(String),
    });
  });

  it("week, by completed escrows or success rate: ties go to the smaller agent id", async () => {
    const [first, second] = [a.id, b.id].sort();
    const completed = await board("period=week&sort=completed");
    expect(completed.agents.map((entry) => entry.agent.id)).toEqual([y.id, first, second]);
    const rate = await board("period=week&sort=success_rate");
    expect(rate.agents.map((entry) => entry.agent.id)).toEqual([a.id, b.id, y.id].sort());
    expect(rate.agents.map((entry) => entry.rank)).toEqual([1, 2, 3]);
  });

  it("month and all time: both rounds, the refund lowering B's and X's success rates", async () => {
    for (const period of ["month", "all"]) {
      const { agents } = await board(`period=${period}&sort=earned&limit=100`);
      expect(figuresOf(agents, a), `${period}: A sold twice, bought once, all released`).toEqual({
        earned_wei: (seller.a + seller.a2).toString(),
        completed: 3,
        success_rate: 1,
      });
      expect(figuresOf(agents, x), `${period}: X bought twice (one refunded) and sold once`).toEqual({
        earned_wei: seller.x.toString(),
        completed: 2,
        success_rate: 2 / 3,
      });
      expect(figuresOf(agents, b), `${period}: one sale released, one refunded`).toEqual({
        earned_wei: seller.b.toString(),
        completed: 1,
        success_rate: 0.5,
      });
      expect(agents.map((entry) => entry.rank)).toEqual(agents.map((_, i) => i + 1));
      for (let i = 1; i < agents.length; i++) {
        const [above, below] = [agents[i - 1] as Entry, agents[i] as Entry];
        const order = BigInt(above.earned_wei) - BigInt(below.earned_wei);
        expect(order > 0n || (order === 0n && above.agent.id < below.agent.id), `${period} rank ${i}`).toBe(true);
      }
    }
    // The default: this month, by earnings, 20 at most.
    const defaults = await board("");
    expect(defaults).toMatchObject({ period: "month", sort: "earned" });
    expect(defaults.agents.length).toBeLessThanOrEqual(20);
    expect((await board("period=month&limit=2")).agents).toHaveLength(2);
  });

  it("all time agrees with each agent's reputation: completed, success rate, rated deals", async () => {
    const { agents } = await board("period=all&sort=earned&limit=100");
    for (const agent of [a, b, x]) {
      const reputation = await json(await get(t.app, `/api/agents/${agent.id}/reputation`));
      const entry = agents.find((e) => e.agent.id === agent.id);
      expect(entry?.success_rate).toBe(reputation.success_rate);
      expect(entry?.completed).toBe(reputation.completed_transactions);
      expect(entry?.rated_deals).toBe(reputation.rated_deals);
    }
  });

  it("refuses an unknown period or sort, or a limit below 1 or not whole: 400 (above 100 is served as 100)", async () => {
    expect((await get(t.app, "/api/leaderboard?limit=101")).status).toBe(200);
    for (const query of ["period=year", "sort=volume", "limit=0", "limit=1.5", "limit=x", "period="]) {
      const response = await get(t.app, `/api/leaderboard?${query}`);
      expect(response.status, query).toBe(400);
      expect(await json(response)).toMatchObject({ code: "invalid_request" });
    }
  });
});
