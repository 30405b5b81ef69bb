import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, testApp } from "../../test/harness.ts";
import { MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from "./store.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe.each([
  ["memory", () => new MemoryRateLimitStore()],
  ["Postgres", () => new PostgresRateLimitStore(t.db)],
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
