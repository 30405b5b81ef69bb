import { describe, expect, it } from "vitest";
import { freshSharedRead } from "./fresh-shared-read.ts";

/** A read whose runs are counted and finished by hand: each run answers the number it was. */
function controlledRead() {
  const runs: Array<{ finish: (fail?: boolean) => void }> = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      const number = runs.length + 1;
      runs.push({ finish: (fail) => (fail ? reject(new Error(`run ${number} failed`)) : resolve(number)) });
    });
  return { runs, read };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("freshSharedRead", () => {
  it("shares a run among the callers that arrived while the one before it was under way", async () => {
    const { runs, read } = controlledRead();
    const shared = freshSharedRead(read);
    const first = shared();
    expect(runs).toHaveLength(1);
    // Asked while run 1 is under way: run 1 may have read before they asked, so they share run 2.
    const second = [shared(), shared(), shared()];
    expect(runs).toHaveLength(1);
    runs[0]?.finish();
    expect(await first).toBe(1);
    await settled();
    expect(runs).toHaveLength(2);
    const third = [shared(), shared()];
    runs[1]?.finish();
    expect(await Promise.all(second)).toEqual([2, 2, 2]);
    await settled();
    expect(runs).toHaveLength(3);
    runs[2]?.finish();
    expect(await Promise.all(third)).toEqual([3, 3]);
    // Nothing under way: the next caller starts a run of its own at once.
    const fourth = shared();
    expect(runs).toHaveLength(4);
    runs[3]?.finish();
    expect(await fourth).toBe(4);
  });

  it("fails the callers of a failed run only; the ones waiting get the next run", async () => {
    const { runs, read } = controlledRead();
    const shared = freshSharedRead(read);
    const failing = shared();
    const waiting = shared();
    runs[0]?.finish(true);
    await expect(failing).rejects.toThrow("run 1 failed");
    await settled();
    expect(runs).toHaveLength(2);
    runs[1]?.finish();
    expect(await waiting).toBe(2);
  });
});
