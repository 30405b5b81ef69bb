import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DAY,
  fundAccounts,
  fundEscrow,
  indexed,
  insertTransaction,
  type Market,
  testMarket,
  USDC,
} from "../../../test/escrow.ts";
import { get, json, registerAgent, registerWithWallet, type TestApp, testApp } from "../../../test/harness.ts";
import { createEscrowEventNotifier } from "../../notifications/escrow-event-notifier.ts";

/*
 * GET /api/agents sorts: newest, reputation (completed escrows, then volume) and volume, each
 * with its own keyset cursor. Trades are transactions of the API whose escrows the buyers fund and
 * release on chain themselves (the directory reads the kept records of the transactions' escrows,
 * which the notifier keeps). This file sends from dev accounts #15..#19 only.
 */

const P = 15;
const Q = 16;
const R = 17;
const S = 18;
const T = 19;

let t: TestApp;
let market: Market;
let tag = "";
/** Agent ids by label, in registration order. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  tag = `dir${Math.random().toString(36).slice(2, 10)}`;
  for (const [label, index] of Object.entries({ P, Q, R, S, T })) {
    ids[label] = (await registerWithWallet(t.app, `${tag} ${label}`, market.address(index))).id;
  }
  ids.N1 = (await registerAgent(t.app, `${tag} N1`)).id;
  ids.N2 = (await registerAgent(t.app, `${tag} N2`)).id;
  await fundAccounts(market, [P, S, T], 1_000n * USDC);

  const label = Object.fromEntries(Object.entries({ P, Q, R, S, T }).map(([name, index]) => [index, name]));
  const agentOf = (index: number) => ids[label[index] as string] as string;
  /** A transaction of `buyer` from `seller` for `amount` USDC, funded on chain by the buyer with its terms. */
  const funded = async (buyer: number, seller: number, amount: bigint) => {
    const deadline = new Date(((await market.now()) + 7 * DAY) * 1000);
    const uuid = await insertTransaction(t.db, {
      buyer: agentOf(buyer),
      seller: agentOf(seller),
      amountWei: amount * USDC,
      deadline,
    });
    return fundEscrow(market, buyer, uuid, market.address(seller), amount * USDC, { deadline });
  };
  /** `buyer` pays `seller` `amount` USDC, released straight away by the buyer. */
  const trade = async (buyer: number, seller: number, amount: bigint) =>
    market.release(buyer, await funded(buyer, seller, amount));
  // completed (either role), volume (seller side, either role), in USDC:
  // P 4, 160 · Q 3, 60 · S 3, 8 · R 2, 101 · T 2, 7 · N1, N2 none.
  await trade(P, Q, 10n);
  await trade(P, Q, 20n);
  await trade(P, Q, 30n);
  await trade(P, R, 100n);
  await trade(S, R, 1n);
  await trade(T, S, 3n);
  await trade(T, S, 4n);
  // Funded but not settled: counts as a transaction, not as completed or volume.
  const last = await funded(P, R, 500n);
  await indexed(t.db, last.receipt);
  // An escrow that is no transaction's counts for nobody, however large.
  await indexed(t.db, await market.release(S, await market.fund(S, market.address(T), 900n * USDC)));
  // The running API's notifier keeps the records the directory sorts by.
  const notifier = createEscrowEventNotifier({
    db: t.db,
    chainId: t.config.chainId,
    logger: pino({ level: "silent" }),
  });
  while ((await notifier.tick()) > 0);
});
afterAll(() => t.close());

/** Every page of the directory for this file's agents, following next_cursor. */
async function directory(sort: string, limit: number) {
  const items: { id: string; transaction_count: number; total_earned_wei: string; reputation_tier: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const path = `/api/agents?keyword=${tag}&sort=${sort}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
    const response = await get(t.app, path);
    expect(response.status, path).toBe(200);
    const body = await json(response);
    items.push(...body.agents);
    cursor = body.next_cursor;
    pages += 1;
  } while (cursor);
  return { pages, items, order: items.map((item) => item.id) };
}

/** N1 and N2 have no record: they come last, by id descending. */
const byIdDesc = (...labels: string[]) =>
  labels.map((label) => ids[label] as string).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));

describe("GET /api/agents sorts", () => {
  it("sort=reputation: completed escrows first, then volume, then id", async () => {
    const expected = [ids.P, ids.Q, ids.S, ids.R, ids.T, ...byIdDesc("N1", "N2")];
    expect((await directory("reputation", 100)).order).toEqual(expected);
    const paged = await directory("reputation", 2);
    expect(paged.pages).toBe(4);
    expect(paged.order).toEqual(expected);
  });

  it("sort=volume: settled volume in either role, then id", async () => {
    const expected = [ids.P, ids.R, ids.Q, ids.S, ids.T, ...byIdDesc("N1", "N2")];
    expect((await directory("volume", 100)).order).toEqual(expected);
    const paged = await directory("volume", 3);
    expect(paged.pages).toBe(3);
    expect(paged.order).toEqual(expected);
  });

  it("sort=newest (the default): newest registration first", async () => {
    const expected = ["N2", "N1", "T", "S", "R", "Q", "P"].map((label) => ids[label]);
    expect((await directory("newest", 100)).order).toEqual(expected);
    const paged = await directory("newest", 1);
    expect(paged.pages).toBe(7);
    expect(paged.order).toEqual(expected);
  });

  it("answers each agent's on-chain record in the page", async () => {
    const { items } = await directory("reputation", 100);
    const p = items.find((item) => item.id === ids.P);
    const r = items.find((item) => item.id === ids.R);
    expect(p).toMatchObject({ transaction_count: 5, total_earned_wei: "0" });
    expect(r?.transaction_count).toBe(3);
    expect(BigInt(r?.total_earned_wei ?? "0")).toBeGreaterThan(0n);
  });

  it("search is keyword's other name; owner keeps the agents an owner's wallet owns", async () => {
    const byKeyword = await json(await get(t.app, `/api/agents?keyword=${tag}&limit=100`));
    const bySearch = await json(await get(t.app, `/api/agents?search=${tag}&limit=100`));
    expect(bySearch).toEqual(byKeyword);
    expect(bySearch.agents.map((a: { id: string }) => a.id).sort()).toEqual(Object.values(ids).sort());
    expect(
      (await json(await get(t.app, `/api/agents?search=${tag}%20P`))).agents.map((a: { id: string }) => a.id),
    ).toEqual([ids.P]);
    expect((await json(await get(t.app, `/api/agents?search=${tag}&keyword=nomatch${tag}`))).agents).toEqual([]);
    // These agents are external: each is owned by its own wallet (any case). (Other files of the
    // suite name the same dev accounts as hosted agents' owners: those are the owner's too.)
    for (const [label, index] of Object.entries({ P, T })) {
      const owner = market.address(index).toLowerCase();
      const page = await json(await get(t.app, `/api/agents?owner=${owner}&limit=100`));
      const owned = page.agents.map((a: { id: string }) => a.id);
      expect(owned).toContain(ids[label]);
      expect(owned.filter((id: string) => Object.values(ids).includes(id))).toEqual([ids[label]]);
    }
    expect((await json(await get(t.app, `/api/agents?owner=0x${"0".repeat(39)}1`))).agents).toEqual([]);
    expect((await get(t.app, "/api/agents?owner=0x12")).status).toBe(400);
  });

  it("answers 400 for a cursor of another sort or one it did not make", async () => {
    const first = await json(await get(t.app, `/api/agents?keyword=${tag}&sort=volume&limit=1`));
    expect(first.next_cursor).toEqual(expect.any(String));
    const crossed = await get(t.app, `/api/agents?keyword=${tag}&sort=reputation&cursor=${first.next_cursor}`);
    expect(crossed.status).toBe(400);
    const forged = Buffer.from(JSON.stringify({ sort: "volume", volume: "1e6", id: ids.P })).toString("base64url");
    expect((await get(t.app, `/api/agents?sort=volume&cursor=${forged}`)).status).toBe(400);
    expect((await get(t.app, "/api/agents?sort=popular")).status).toBe(400);
  });
});
