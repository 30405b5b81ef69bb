/**
 * `pnpm bench` for the contracts: prints the gas of every escrow transaction next to the issue's
 * targets and the committed snapshot. `UPDATE_GAS_SNAPSHOT=1 pnpm bench` rewrites the snapshot
 * (commit it with the contract change that moved it).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { writeSection } from "../../bench/results.ts";
import { GAS_SNAPSHOT_FILE, GAS_TARGETS, type GasTable, measureGas } from "./measure-gas.ts";

const started = performance.now();
const measured = await measureGas();
const snapshot: GasTable = existsSync(GAS_SNAPSHOT_FILE) ? JSON.parse(readFileSync(GAS_SNAPSHOT_FILE, "utf8")) : {};

const rows = Object.entries(measured).map(([transaction, gas]) => {
  const target = GAS_TARGETS[transaction];
  const before = snapshot[transaction];
  return {
    transaction,
    gas,
    target: target ?? "",
    "within target": target === undefined ? "" : gas <= target ? "yes" : "NO",
    snapshot: before ?? "",
    change: before === undefined ? "new" : gas - before,
  };
});
console.log("\nAgentEscrow gas per transaction (receipt gasUsed, incl. 21,000 base; MockUSDC)");
console.table(rows);
writeSection("1-gas", {
  order: 1,
  title: "Contract gas",
  durationMs: performance.now() - started,
  tables: [
    {
      title: "AgentEscrow gas per transaction",
      workload:
        "one transaction of each state-changing AgentEscrow function (the owner's setters included) on Hardhat's in-process chain with MockUSDC, every token holder " +
        "already holding a balance; receipt gasUsed including the 21,000 base",
      columns: ["transaction", "gas", "target", "within target", "snapshot", "change"],
      rows: rows.map((row) => [row.transaction, row.gas, row.target, row["within target"], row.snapshot, row.change]),
    },
  ],
});

if (process.env.UPDATE_GAS_SNAPSHOT) {
  writeFileSync(GAS_SNAPSHOT_FILE, `${JSON.stringify(measured, null, 2)}\n`);
  console.log(`Snapshot written to gas-snapshot.json`);
}
if (rows.some((row) => row["within target"] === "NO")) process.exitCode = 1;
