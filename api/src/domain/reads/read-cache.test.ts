import { describe, expect, it } from "vitest";
import { ReadCache } from "./read-cache.ts";

describe("ReadCache", () => {
  it("shares one read among concurrent identical requests and keeps it for the TTL", async () => {
    const cache = new ReadCache(60_000);
    let reads = 0;
    const load = async () => {
      reads += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return reads;
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get("browse", load)));
    expect(answers).toEqual(Array(20).fill(1));
    expect(await cache.get("browse", load)).toBe(1);
    expect(await cache.get("other", load)).toBe(2);
  });

  it("reads again after the TTL, after an invalidation, and after a failed read", async () => {
    const cache = new ReadCache(30);
    let reads = 0;
    const load = async () => ++reads;
    expect(await cache.get("k", load)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await cache.get("k", load)).toBe(2);
    cache.invalidate();
    expect(await cache.get("k", load)).toBe(3);
    await expect(cache.get("bad", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("bad", load)).toBe(4);
  });

  it("is off with a TTL of 0", async () => {
    const cache = new ReadCache(0);
    let reads = 0;
    await cache.get("k", async () => ++reads);
    await cache.get("k", async () => ++reads);
    expect(reads).toBe(2);
  });
});
