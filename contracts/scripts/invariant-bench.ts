/**
 * `pnpm bench:invariants`: the escrow's invariant tests with INVARIANT_RUNS runs of each invariant
 * (default 10,000; the test suite uses 64), depth 64, timed. Separate from `pnpm bench`, whose
 * 10-minute budget it does not fit on 2 cores; its section stays in the report of later runs.
 */
import { spawn } from "node:child_process";
import { writeSection } from "../../bench/results.ts";

const RUNS = Number(process.env.INVARIANT_RUNS ?? 10_000);
const TEST_FILE = "contracts/test/escrow/invariant/EscrowInvariants.t.sol";

const started = performance.now();
const exitCode = await new Promise<number>((resolve, reject) => {
  const child = spawn("hardhat", ["test", "solidity", TEST_FILE], {
    env: { ...process.env, INVARIANT_RUNS: String(RUNS) },
    stdio: "inherit",
  });
  child.on("error", reject);
  child.on("exit", (code) => resolve(code ?? 1));
});
const seconds = (performance.now() - started) / 1_000;
console.log(`invariants: ${RUNS.toLocaleString("en-US")} runs each, depth 64, in ${seconds.toFixed(1)} s`);

writeSection("5-invariants", {
  order: 5,
  title: "Contract invariants (pnpm --filter @agent-marketplace/contracts bench:invariants, run separately)",
  durationMs: performance.now() - started,
  tables: [
    {
      title: "Invariant tests of AgentEscrow",
      workload: `${TEST_FILE}: every invariant checked after each of ${RUNS.toLocaleString("en-US")} random sequences of 64 handler moves (Hardhat 3 Solidity tests), measured ${new Date().toISOString()}`,
      columns: ["runs per invariant", "depth", "wall time", "result"],
      rows: [[RUNS, 64, `${seconds.toFixed(1)} s`, exitCode === 0 ? "all hold" : `failed (exit ${exitCode})`]],
    },
  ],
});
process.exitCode = exitCode;
