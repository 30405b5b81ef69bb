import { describe, expect, it } from "vitest";
import { KeyedQueue } from "./keyed-queue.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("KeyedQueue", () => {
  it("runs one key's tasks in order, one at a time, and other keys beside them; a failure stops nothing", async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name} start`);
        await tick();
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run("a", task("a1", true)),
      queue.run("a", task("a2")),
      queue.run("b", task("b1")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(log.indexOf("a2 start")).toBeGreaterThan(log.indexOf("a1 end"));
    expect(log.indexOf("b1 start")).toBeLessThan(log.indexOf("a1 end"));
  });
});
