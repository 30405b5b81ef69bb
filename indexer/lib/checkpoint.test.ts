import { describe, expect, it } from "vitest";
import { decodeCheckpoint, IndexedBlockWatcher, indexedBlock, type Query, waitForIndexedBlock } from "./checkpoint.ts";

/** Ponder's encoding: timestamp (10), chain id (16), block (16), tx index (16), type (1), index (16). */
function checkpoint(timestamp: number, chainId: number, block: number): string {
  const pad = (value: number, digits: number) => String(value).padStart(digits, "0");
  return `${pad(timestamp, 10)}${pad(chainId, 16)}${pad(block, 16)}${pad(7, 16)}5${pad(2, 16)}`;
}

/** A database whose checkpoint view answers with `blocks` in turn (the last one from then on). */
function database(blocks: Array<number | undefined>): Query & { calls: string[] } {
  const calls: string[] = [];
  const query = async (sql: string) => {
    calls.push(sql);
    const block = blocks.length > 1 ? blocks.shift() : blocks[0];
    return { rows: block === undefined ? [] : [{ block_number: String(block) }] };
  };
  return Object.assign(query, { calls });
}

describe("decodeCheckpoint", () => {
  it("reads the block, its time and the chain from a checkpoint", () => {
    expect(decodeCheckpoint(checkpoint(1_700_000_123, 84532, 31_337_000))).toEqual({
      blockTimestamp: 1_700_000_123n,
      chainId: 84532,
      blockNumber: 31_337_000n,
    });
  });

  it("refuses anything else", () => {
    expect(() => decodeCheckpoint("12")).toThrow(/not a Ponder checkpoint/);
    expect(() => decodeCheckpoint(`x${checkpoint(1, 1, 1).slice(1)}`)).toThrow(/not a Ponder checkpoint/);
  });
});

describe("indexedBlock", () => {
  it("asks the checkpoint view for one chain", async () => {
    const db = database([42]);
    expect(await indexedBlock(db, 31337)).toBe(42n);
    expect(db.calls[0]).toMatch(/FROM "chain"\."_ponder_checkpoint" WHERE chain_id = 31337$/);
  });

  it("has no block while the chain has no checkpoint or the views do not exist yet", async () => {
    expect(await indexedBlock(database([undefined]), 1)).toBeUndefined();
    const missing: Query = async () => {
      throw Object.assign(new Error('relation "chain._ponder_checkpoint" does not exist'), { code: "42P01" });
    };
    expect(await indexedBlock(missing, 1)).toBeUndefined();
  });

  it("passes on any other database error", async () => {
    const down: Query = async () => {
      throw Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" });
    };
    await expect(indexedBlock(down, 1)).rejects.toThrow("connection refused");
  });
});

describe("waitForIndexedBlock", () => {
  it("returns once the indexer reaches the block", async () => {
    const db = database([undefined, 9, 10, 11]);
    expect(await waitForIndexedBlock(db, 1, 10n, { intervalMs: 1 })).toBe(true);
    expect(db.calls).toHaveLength(3);
  });

  it("gives up after the timeout", async () => {
    expect(await waitForIndexedBlock(database([5]), 1, 6n, { timeoutMs: 20, intervalMs: 5 })).toBe(false);
  });
});

describe("IndexedBlockWatcher", () => {
  it("answers many waiters with one query a round", async () => {
    // The indexer moves 10 blocks between two reads: 50 waiters need 6 reads, not 50 each.
    const db = database([0, 10, 20, 30, 40, 50]);
    const watcher = new IndexedBlockWatcher(db, 1, { intervalMs: 1 });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => watcher.wait(BigInt(i + 1))));
    expect(answers).toEqual(Array(50).fill(true));
    expect(db.calls.length).toBeLessThanOrEqual(6);
    expect(watcher.waiting).toBe(0);
  });

  it("times out each waiter on its own clock while the others go on waiting", async () => {
    const db = database([5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9]);
    const watcher = new IndexedBlockWatcher(db, 1, { intervalMs: 5 });
    const impatient = watcher.wait(9n, 20);
    const patient = watcher.wait(9n, 10_000);
    expect(await impatient).toBe(false);
    expect(await patient).toBe(true);
  });

  it("checks a new waiter at once instead of after the pause", async () => {
    const db = database([5]);
    const watcher = new IndexedBlockWatcher(db, 1, { intervalMs: 60_000 });
    const far = watcher.wait(100n, 100);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    expect(await watcher.wait(3n)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await far).toBe(false);
  });

  it("passes a database error to every waiter of the round, then starts afresh", async () => {
    let down = true;
    const query: Query = async (sql) => {
      if (down) throw Object.assign(new Error("connection refused"), { code: "ECONNREFUSED" });
      return database([7])(sql);
    };
    const watcher = new IndexedBlockWatcher(query, 1, { intervalMs: 1 });
    const waits = [watcher.wait(1n), watcher.wait(2n)];
    for (const wait of waits) await expect(wait).rejects.toThrow("connection refused");
    down = false;
    expect(await watcher.wait(7n)).toBe(true);
  });
});
