import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseOfItsOwn, type TestApp, testApp } from "../../test/harness.ts";
import { createDatabase, type Database } from "../db/client.ts";
import { MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore, SharedRateLimitStore } from "./store.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

/**
 * A database of its own with only the store's tables: API servers that other test files start on
 * the suite's database say they are alive there, and an instance there is never alone.
 */
async function storeOnlyDatabase(): Promise<{ db: Database; drop: () => Promise<void> }> {
  const own = await databaseOfItsOwn(t, "rate_limits");
  const db = createDatabase(own.url, { max: 2 });
  // The tables as migrations 0000, 0001 and 0023 leave them.
  await db.$client.query(`CREATE SCHEMA app;
    CREATE UNLOGGED TABLE app.rate_limit_windows (key text PRIMARY KEY, window_start timestamptz NOT NULL, hits integer NOT NULL);
    CREATE UNLOGGED TABLE app.rate_limit_instances (id text PRIMARY KEY, seen_at timestamptz NOT NULL);`);
  return {
    db,
    drop: async () => {
      await db.$client.end();
      await own.drop();
    },
  };
}

/** Every shared store a test makes, closed after it: a store left running says it is alive. */
const opened: SharedRateLimitStore[] = [];
function shared(flushMs: number, db: Database = t.db): SharedRateLimitStore {
  const store = new SharedRateLimitStore(new PostgresRateLimitStore(db), flushMs);
  opened.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** Two instances, each started and having heard of the other. */
async function twoInstances(flushMs: number) {
  const a = shared(flushMs);
  const b = shared(flushMs);
  await a.start();
  await b.start();
  await a.announce();
  return { a, b };
}

describe.each([
  ["memory", () => new MemoryRateLimitStore()],
  ["Postgres", () => new PostgresRateLimitStore(t.db)],
  ["shared (batched Postgres)", () => shared(20)],
] as [string, () => RateLimitStore][])("the %s rate-limit store", (_, makeStore) => {
  it("counts hits per key inside a window and starts again after it", async () => {
    const store = makeStore();
    const key = randomUUID();
    const first = await store.hit(key, 200);
    expect(first.count).toBe(1);
    expect(first.resetAt).toBeGreaterThan(Date.now());
    expect((await store.hit(key, 200)).count).toBe(2);
    expect((await store.hit(randomUUID(), 200)).count).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await store.hit(key, 200)).count).toBe(1);
  });

  it("counts concurrent hits exactly", async () => {
    const store = makeStore();
    const key = randomUUID();
    const counts = await Promise.all(Array.from({ length: 20 }, () => store.hit(key, 60_000)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe("the shared store across API instances", () => {
  it("adds every instance's hits to the one count at each flush", async () => {
    const { a, b } = await twoInstances(60_000);
    const key = randomUUID();
    for (let i = 0; i < 3; i++) await a.hit(key, 60_000);
    for (let i = 0; i < 2; i++) await b.hit(key, 60_000);
    await a.flush();
    await b.flush();
    // a has not seen b's last hit yet: its own 3, b's first, and this one.
    expect((await a.hit(key, 60_000)).count).toBe(5);
    // Its next flush brings the shared total: 3 + 2 + 1, and this hit makes 7.
    await a.flush();
    expect((await a.hit(key, 60_000)).count).toBe(7);
  });

  it("an instance idle while the others counted asks for the total before it answers, its concurrent hits too", async () => {
    const { a, b } = await twoInstances(50);
    const key = randomUUID();
    expect((await b.hit(key, 60_000)).count).toBe(1);
    for (let i = 0; i < 8; i++) await a.hit(key, 60_000);
    await a.flush();
    await new Promise((resolve) => setTimeout(resolve, 60));
    // b last heard "1": a burst to it counts on from a's 8, not from its own 1.
    const burst = await Promise.all(Array.from({ length: 5 }, () => b.hit(key, 60_000)));
    expect(burst.map((hit) => hit.count).sort((x, y) => x - y)).toEqual([10, 11, 12, 13, 14]);
  });

  it("keeps the hits that arrive while a flush is on its way to the database", async () => {
    const a = shared(60_000);
    const key = randomUUID();
    for (let i = 0; i < 3; i++) await a.hit(key, 60_000);
    const flushing = a.flush();
    // Counted locally while the flush's statement runs (not yet in the shared row), after the 3 on
    // their way to it.
    const meanwhile = await Promise.all([a.hit(key, 60_000), a.hit(key, 60_000)]);
    expect(meanwhile.map((hit) => hit.count)).toEqual([4, 5]);
    await flushing;
    expect((await a.hit(key, 60_000)).count).toBe(6);
    await a.flush();
    expect((await a.hit(key, 60_000)).count).toBe(7);
  });

  it("an instance that hears of no other counts alone, asking nothing; once another starts it asks again", async () => {
    const own = await storeOnlyDatabase();
    // Only Date is faked: what an instance knows grows old without any flush running meanwhile.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const a = shared(60_000, own.db);
      await a.start();
      const key = randomUUID();
      const stored = async () => {
        const { rows } = await own.db.$client.query<{ hits: number }>(
          "SELECT hits FROM app.rate_limit_windows WHERE key = $1",
          [key],
        );
        return rows[0]?.hits;
      };
      const later = () => vi.setSystemTime(Date.now() + 61_000);
      // A moment after it started (the fake clock stands still otherwise).
      vi.setSystemTime(Date.now() + 1);

      // A key's first hit in a window always asks.
      expect((await a.hit(key, 600_000)).count).toBe(1);
      expect(await stored()).toBe(1);
      later();
      // What it knows is older than a flush, but it is alone: it answered without asking.
      expect((await a.hit(key, 600_000)).count).toBe(2);
      expect(await stored()).toBe(1);
      await a.flush();
      expect(await stored()).toBe(2);

      const b = shared(60_000, own.db);
      await b.start();
      await a.announce();
      later();
      // b counts too: a asks before it answers, this hit with the question.
      expect((await a.hit(key, 600_000)).count).toBe(3);
      expect(await stored()).toBe(3);
      expect((await b.hit(key, 600_000)).count).toBe(4);

      // b has left (after sending its last hit): a asks once more, then counts alone again.
      expect((await b.hit(key, 600_000)).count).toBe(5);
      await b.close();
      await a.announce();
      later();
      expect((await a.hit(key, 600_000)).count).toBe(6);
      expect(await stored()).toBe(6);
      later();
      expect((await a.hit(key, 600_000)).count).toBe(7);
      expect(await stored()).toBe(6);
    } finally {
      vi.useRealTimers();
      await Promise.all(opened.splice(0).map((store) => store.close()));
      await own.drop();
    }
  });
});
