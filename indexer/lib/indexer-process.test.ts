import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexerEnv, releaseSchemaLock, startIndexer } from "./indexer-process.ts";
import { freePort, type LocalPostgres, startLocalPostgres } from "./local-postgres.ts";

const options = { schema: "indexer_test", port: 42_069, rpcUrl: "http://127.0.0.1:8545" };

describe("indexerEnv", () => {
  it("lets Ponder start at 500 JSON-RPC requests a second on the local chain", () => {
    expect(indexerEnv({ ...options, chainId: 31337 }, {}).PONDER_RPC_INITIAL_RPS).toBe("500");
  });

  it("keeps Ponder's own cautious start on a provider's endpoint, and an operator's choice anywhere", () => {
    expect(indexerEnv({ ...options, chainId: 8453 }, {}).PONDER_RPC_INITIAL_RPS).toBeUndefined();
    expect(indexerEnv({ ...options, chainId: 31337 }, { PONDER_RPC_INITIAL_RPS: "50" }).PONDER_RPC_INITIAL_RPS).toBe(
      "50",
    );
  });

  it("is read by the installed Ponder (the patch is applied)", () => {
    // The Ponder that startIndexer runs: the indexer's own dependency.
    const ponderDir = path.join(import.meta.dirname, "..", "node_modules", "ponder");
    const rpc = readFileSync(path.join(ponderDir, "dist/esm/rpc/index.js"), "utf8");
    expect(rpc).toMatch(/const INITIAL_MAX_RPS = .*process\.env\.PONDER_RPC_INITIAL_RPS/);
  });
});

describe("Ponder's lock on a schema", () => {
  let dir: string;
  let postgres: LocalPostgres;
  let db: pg.Client;
  const query = (sql: string) => db.query(sql);
  /** A schema as a Ponder app that holds it leaves it: locked, with a heartbeat and its build. */
  const lockedSchema = async (schema: string) => {
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}._ponder_meta (key text PRIMARY KEY, value jsonb)`);
    await db.query(`INSERT INTO ${schema}._ponder_meta VALUES ('app', $1)`, [
      JSON.stringify({ is_locked: 1, heartbeat_at: 1_700_000_000_000, build_id: "build" }),
    ]);
  };
  const app = async (schema: string) =>
    (await db.query(`SELECT value FROM ${schema}._ponder_meta WHERE key = 'app'`)).rows[0]?.value;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "indexer-lock-"));
    postgres = await startLocalPostgres({ dataDir: path.join(dir, "pg"), port: await freePort(), persistent: false });
    db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("releaseSchemaLock clears the lock and keeps the rest of the app's row", async () => {
    await lockedSchema("indexer_released0000");
    await releaseSchemaLock(query, "indexer_released0000");
    expect(await app("indexer_released0000")).toEqual({
      is_locked: 0,
      heartbeat_at: 1_700_000_000_000,
      build_id: "build",
    });
  });

  it("an indexer that never became ready leaves the lock alone: it may be another indexer's", async () => {
    await lockedSchema("indexer_foreign00000");
    const indexer = startIndexer({
      databaseUrl: postgres.url,
      schema: "indexer_foreign00000",
      chainId: 31337,
      rpcUrl: `http://127.0.0.1:${await freePort()}`,
      port: await freePort(),
      logFile: path.join(dir, "indexer.log"),
    });
    await indexer.stop("SIGKILL");
    await indexer.releaseLock();
    expect(await app("indexer_foreign00000")).toMatchObject({ is_locked: 1 });
  });
});
