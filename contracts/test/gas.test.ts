import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  GAS_SNAPSHOT_FILE,
  GAS_SNAPSHOT_TOLERANCE,
  GAS_TARGETS,
  type GasTable,
  measureGas,
} from "../scripts/measure-gas.ts";

describe("gas", async () => {
  const measured = await measureGas();
  const snapshot: GasTable = JSON.parse(readFileSync(GAS_SNAPSHOT_FILE, "utf8"));

  it("meets every target", () => {
    for (const [transaction, target] of Object.entries(GAS_TARGETS)) {
      const gas = measured[transaction];
      assert.ok(gas !== undefined, `${transaction} was measured`);
      assert.ok(gas <= target, `${transaction}: ${gas} gas exceeds the target of ${target}`);
    }
  });

  it("matches the committed snapshot (after a contract change: UPDATE_GAS_SNAPSHOT=1 pnpm bench)", () => {
    assert.deepEqual(Object.keys(measured), Object.keys(snapshot), "the same transactions are measured");
    for (const [transaction, gas] of Object.entries(measured)) {
      const before = snapshot[transaction] ?? 0;
      assert.ok(
        Math.abs(gas - before) <= GAS_SNAPSHOT_TOLERANCE,
        `${transaction}: ${gas} gas, snapshot ${before}: update the snapshot if the change is intended`,
      );
    }
  });
});
