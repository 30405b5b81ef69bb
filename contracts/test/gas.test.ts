import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  GAS_SNAPSHOT_FILE,
  GAS_SNAPSHOT_TOLERANCE,
  GAS_TARGETS,
  GAS_TOKENS,
  type GasReport,
  measureGasReport,
} from "../scripts/measure-gas.ts";

describe("gas", async () => {
  const measured = await measureGasReport();
  const snapshot: GasReport = JSON.parse(readFileSync(GAS_SNAPSHOT_FILE, "utf8"));

  for (const token of GAS_TOKENS) {
    describe(token, () => {
      it("meets every target", () => {
        for (const [transaction, target] of Object.entries(GAS_TARGETS[token])) {
          const gas = measured[token][transaction];
          assert.ok(gas !== undefined, `${transaction} was measured`);
          assert.ok(gas <= target, `${transaction}: ${gas} gas exceeds the target of ${target}`);
        }
      });

      it("matches the committed snapshot (after a contract change: UPDATE_GAS_SNAPSHOT=1 pnpm bench)", () => {
        const before = snapshot[token];
        assert.ok(before, `the snapshot has ${token}`);
        assert.deepEqual(Object.keys(measured[token]), Object.keys(before), "the same transactions are measured");
        for (const [transaction, gas] of Object.entries(measured[token])) {
          const was = before[transaction] ?? 0;
          assert.ok(
            Math.abs(gas - was) <= GAS_SNAPSHOT_TOLERANCE,
            `${transaction}: ${gas} gas, snapshot ${was}: update the snapshot if the change is intended`,
          );
        }
      });
    });
  }
});
