import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, testApp } from "../../test/harness.ts";
import { createDatabase, type Database } from "../db/client.ts";
import { MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore, SharedRateLimitStore } from "./store.ts";

let t: TestApp;
/** A second pool on the same database: what another API process would have. */
let otherProcessDb: Database;
beforeAll(async () => {
  t = await testApp();
  otherProcessDb = createDatabase(t.config.databaseUrl, { max: 3 });
});
afterAll(async () => {
  await otherProcessDb.$client.end();
  await t.close();
});

const opened: SharedRateLimitStore[] = [];
function shared(db: Database = t.db, flushMs = 100, idleGiveBackMs = 1_000): SharedRateLimitStore {
  const store = new SharedRateLimitStore(new PostgresRateLimitStore(db), flushMs, idleGiveBackMs);
  opened.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const admitted = (decisions: Array<{ allowed: boolean }>) => decisions.filter((d) => d.allowed).length;
const burst = (store: RateLimitStore, key: string, n: number, limit = 100, windowMs = 60_000) =>
  Promise.all(Array.from({ length: n }, () => store.take(key, limit, windowMs)));

async function storedRow(key: string) {
  const { rows } = await t.db.$client.query<{ hits: number; hit_limit: number }>(
    "SELECT hits, hit_limit FROM app.rate_limit_windows WHERE key = $1",
    [key],
  );
  return rows[0];
}

describe.each([
  ["memory", () => new MemoryRateLimitStore()],
  ["Postgres", () => new PostgresRateLimitStore(t.db)],
  ["shared (leased from Postgres)", () => shared()],
] as [string, () => RateLimitStore][])("the %s rate-limit store", (_, makeStore) => {
  it("admits up to the limit in a window, refuses beyond without spending, and starts again after it", async () => {
    const store = makeStore();
    const key = randomUUID();
    const first = await store.take(key, 3, 300);
    expect(first).toMatchObject({ allowed: true, remaining: 2 });
    expect(first.resetAt).toBeGreaterThan(Date.now());
    expect(await store.take(key, 3, 300)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await store.take(key, 3, 300)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await store.take(key, 3, 300)).toMatchObject({ allowed: false, remaining: 0 });
    expect(await store.take(key, 3, 300)).toMatchObject({ allowed: false, remaining: 0 });
    // Another key's budget is its own.
    expect(await store.take(randomUUID(), 3, 300)).toMatchObject({ allowed: true, remaining: 2 });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await store.take(key, 3, 300)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("a burst of 150 concurrent requests on a fresh key admits exactly the limit of 100", async () => {
    const store = makeStore();
    const decisions = await burst(store, randomUUID(), 150);
    expect(admitted(decisions)).toBe(100);
    // The answers count down without repeats: each admitted request saw its own remaining.
    const remaining = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    expect(Math.min(...remaining)).toBe(0);
  });
});

describe("the shared store across API processes", () => {
  it("two processes' concurrent bursts on one key admit no more than the limit together", async () => {
    for (let round = 0; round < 3; round++) {
      const a = shared(t.db);
      const b = shared(otherProcessDb);
      await a.start();
      await b.start();
      await a.announce();
      const key = randomUUID();
      const [fromA, fromB] = await Promise.all([burst(a, key, 150), burst(b, key, 150)]);
      expect(admitted(fromA) + admitted(fromB)).toBe(100);
      expect(await storedRow(key)).toEqual({ hits: 100, hit_limit: 100 });
      await Promise.all([a.close(), b.close()]);
      opened.splice(0);
    }
  });

  it("what one process leased and left idle is given back for the other to admit", async () => {
    const a = shared(t.db, 50);
    const b = shared(otherProcessDb, 50);
    await a.start();
    await b.start();
    await a.announce();
    const key = randomUUID();
    // a takes one request and holds the rest of its lease.
    expect((await a.take(key, 10, 60_000)).allowed).toBe(true);
    // b may admit only what a does not hold, and then the window is spent for it.
    const early = admitted(await burst(b, key, 10, 10));
    expect(early).toBeLessThan(9);
    // a idles past a second: its flush gives its lease back, and b admits the rest.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const late = admitted(await burst(b, key, 10, 10));
    expect(1 + early + late).toBe(10);
    expect(admitted(await burst(a, key, 3, 10))).toBe(0);
  });

  it("a process that stops gives back what it leased", async () => {
    const a = shared(t.db);
    const key = randomUUID();
    await a.start();
    expect((await a.take(key, 100, 60_000)).allowed).toBe(true);
    // Alone, it leased half of the budget.
    expect(await storedRow(key)).toEqual({ hits: 50, hit_limit: 100 });
    await a.close();
    expect(await storedRow(key)).toEqual({ hits: 1, hit_limit: 100 });
  });

  it("windows that ended are pruned", async () => {
    const store = new PostgresRateLimitStore(t.db);
    const ended = randomUUID();
    const running = randomUUID();
    await store.take(ended, 5, 50);
    await store.take(running, 5, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.prune()).toBeGreaterThanOrEqual(1);
    expect(await storedRow(ended)).toBeUndefined();
    expect(await storedRow(running)).toEqual({ hits: 1, hit_limit: 5 });
  });
});
