/**
 * Runs the indexer (`ponder start`) as a child process: for `pnpm start`, the end-to-end tests and
 * the benchmarks. Node.js only.
 *
 * Ponder's lock: Ponder marks its schema locked while it runs (`_ponder_meta`, key "app") and
 * refreshes a heartbeat; another `ponder start` on that schema waits until the heartbeat is 25 s old
 * before it takes over. A killed indexer leaves the mark set, and a stopped one may (its shutdown
 * does not always get that far): the next indexer on the schema would wait, and
 * `dropStaleIndexerSchemas` would keep the schema for a minute. So an indexer started here clears
 * its mark once it has exited ({@link IndexerProcess.releaseLock}), and
 * {@link IndexerProcess.replace} starts the next one on the schema at once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { openSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import pg from "pg";
import { type Query, VIEWS_SCHEMA } from "./checkpoint.ts";

const indexerDir = fileURLToPath(new URL("..", import.meta.url));

export interface IndexerOptions {
  /** Postgres; PGlite when absent. */
  databaseUrl?: string;
  /** PGlite's folder when there is no `databaseUrl` (default indexer/.ponder/pglite). */
  pgliteDirectory?: string;
  /** The schema the tables live in; see {@link schemaNameFor}. */
  schema: string;
  /** Where the views are published; "chain" by default. */
  viewsSchema?: string;
  chainId: number;
  rpcUrl: string;
  /** Folder of the deployments file; contracts/deployments by default. */
  deploymentsDir?: string;
  /** Port of Ponder's HTTP server (/health, /ready, /status, /metrics). */
  port: number;
  pollingIntervalMs?: number;
  /** Ponder's output is appended here; without it, Ponder writes to this process's output. */
  logFile?: string;
  /** Ponder's log lines: "pretty" (the default) or "json" (one object a line, for a log collector). */
  logFormat?: "pretty" | "json";
}

export interface IndexerProcess {
  process: ChildProcess;
  url: string;
  /** Resolves when Ponder answers /ready (backfill done, views published). */
  ready(timeoutMs?: number): Promise<void>;
  /** SIGTERM (a clean stop) or SIGKILL (a crash); waits for the exit. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /**
   * Once the process has exited, clears Ponder's lock on its schema, so that the next indexer on
   * that schema starts at once and `dropStaleIndexerSchemas` may drop it. Only a lock this indexer
   * held is cleared: nothing happens before its `ready()` has resolved (until then the lock may be
   * another indexer's, which made this one wait or fail), while it still runs, or on PGlite.
   */
  releaseLock(): Promise<void>;
  /**
   * Starts a new indexer with the same options after this one died (or stops this one with SIGKILL
   * first): it waits for Postgres to answer (it may be coming back itself), releases this one's lock
   * and starts the next, which resumes from the schema's checkpoint. The next may release the lock
   * too, ready or not, if this one could.
   */
  replace(): Promise<IndexerProcess>;
}

/** Ponder's CLI script, from the indexer's own dependency (pnpm links it into indexer/node_modules). */
function ponderCli(): string {
  const dir = path.join(indexerDir, "node_modules", "ponder");
  const { bin } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { bin: { ponder: string } };
  return path.join(dir, bin.ponder);
}

/**
 * Ponder's environment. Ponder starts by allowing itself 20 JSON-RPC requests a second and raises
 * that by 5% at a time while they succeed; its 100 ms polling alone spends 10. A local node has no
 * provider's limit to respect, and mining each transaction at once it makes a block per write: 100
 * agents buying at once left the indexer seconds behind. So the local chain starts at 500 a second
 * (PONDER_RPC_INITIAL_RPS, read by our patch of Ponder: patches/ponder@0.16.10.patch).
 */
export function indexerEnv(
  options: IndexerOptions,
  inherited: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const env: Record<string, string> = {
    ...(inherited as Record<string, string>),
    PONDER_TELEMETRY_DISABLED: "true",
    CHAIN_ID: String(options.chainId),
    RPC_URL: options.rpcUrl,
  };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.pgliteDirectory) env.PGLITE_DIRECTORY = path.resolve(options.pgliteDirectory);
  if (options.deploymentsDir) env.DEPLOYMENTS_DIR = path.resolve(options.deploymentsDir);
  if (options.pollingIntervalMs) env.POLLING_INTERVAL_MS = String(options.pollingIntervalMs);
  if (options.chainId === LOCAL_CHAIN_ID) env.PONDER_RPC_INITIAL_RPS ??= "500";
  return env;
}

export function startIndexer(options: IndexerOptions): IndexerProcess {
  return spawnIndexer(options, false);
}

/** `heldLock`: the schema's lock is known to be ours (an earlier indexer of the caller's held it). */
function spawnIndexer(options: IndexerOptions, heldLock: boolean): IndexerProcess {
  const env = indexerEnv(options);
  const output = options.logFile ? openSync(options.logFile, "a") : "inherit";
  const args = [
    ponderCli(),
    "start",
    "--schema",
    options.schema,
    "--views-schema",
    options.viewsSchema ?? VIEWS_SCHEMA,
    "--port",
    String(options.port),
    "--hostname",
    "127.0.0.1",
    ...(options.logFormat ? ["--log-format", options.logFormat] : []),
  ];
  const child = spawn(process.execPath, args, { cwd: indexerDir, env, stdio: ["ignore", output, output] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${options.port}`;
  const indexer: IndexerProcess = {
    process: child,
    url,
    async ready(timeoutMs = 120_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        if (!running()) {
          throw new Error(`the indexer exited (${child.exitCode ?? child.signalCode}) before it was ready`);
        }
        const status = await fetch(`${url}/ready`).then(
          (response) => response.status,
          () => 0,
        );
        // Ponder takes the lock before it serves anything: from now on the lock is this indexer's.
        if (status === 200) {
          heldLock = true;
          return;
        }
        if (Date.now() > until) throw new Error(`the indexer was not ready within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop(signal = "SIGTERM") {
      if (running()) child.kill(signal);
      await exited;
    },
    async releaseLock() {
      if (!heldLock || running() || !options.databaseUrl) return;
      const db = new pg.Client({ connectionString: options.databaseUrl });
      db.on("error", () => {});
      await db.connect();
      try {
        await releaseSchemaLock((sql) => db.query(sql), options.schema);
      } finally {
        await db.end().catch(() => {});
      }
    },
    async replace() {
      await indexer.stop("SIGKILL");
      if (options.databaseUrl) await databaseAnswers(options.databaseUrl);
      await indexer.releaseLock();
      return spawnIndexer(options, heldLock);
    },
  };
  return indexer;
}

/**
 * Clears Ponder's lock on `schema` (`is_locked` of its "app" row; the heartbeat and the build stay).
 * Only for a schema whose indexer has exited: a running one would carry on unlocked, and a second
 * indexer could take the schema over beside it.
 */
export async function releaseSchemaLock(query: Query, schema: string): Promise<void> {
  await query(
    `UPDATE "${schema.replaceAll('"', '""')}"._ponder_meta SET value = jsonb_set(value, '{is_locked}', to_jsonb(0)) WHERE key = 'app'`,
  );
}

/** Until Postgres answers at `url`, for at most `ms`. */
async function databaseAnswers(url: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const db = new pg.Client({ connectionString: url });
    db.on("error", () => {});
    try {
      await db.connect();
      await db.query("SELECT 1");
      return;
    } catch (error) {
      if (Date.now() > until)
        throw new Error(`Postgres did not answer within ${ms / 1000} s (${(error as Error).message})`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await db.end().catch(() => {});
    }
  }
}

/**
 * A schema name for this indexer build on this chain: `indexer_` and a hash of the indexing code
 * and the deployment it indexes. Ponder refuses to reuse a schema for a different build, so a new
 * build (or a fresh local chain) indexes into a new schema and the views switch to it once it has
 * caught up; a restart of the same build resumes where it stopped.
 *
 * `chainIdentity` tells one chain instance from another with the same contracts (a restarted
 * local node): the hash of the deployment's start block is a good one.
 */
export function schemaNameFor(deploymentJson: string, chainIdentity: string): string {
  const hash = createHash("sha256");
  for (const file of indexingSources()) hash.update(file).update(readFileSync(path.join(indexerDir, file)));
  hash.update(deploymentJson).update(chainIdentity);
  return `indexer_${hash.digest("hex").slice(0, 12)}`;
}

/** Every file Ponder's build depends on, relative to the indexer folder, in a stable order. */
function indexingSources(): string[] {
  const files = ["ponder.config.ts", "ponder.schema.ts"];
  for (const dir of ["src", "lib"]) {
    for (const entry of readdirSync(path.join(indexerDir, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts")) continue;
      files.push(path.relative(indexerDir, path.join(entry.parentPath, entry.name)));
    }
  }
  return files.sort();
}

/** Ponder's lock on a schema counts as live for this long after its last heartbeat. */
const LIVE_HEARTBEAT_MS = 60_000;

/**
 * Drops the schemas of earlier indexer builds (`indexer_*` other than `keep`) that no running
 * indexer holds. For a single machine's database, where each new build or fresh local chain
 * leaves the previous schema behind; a production database keeps them until the operator says.
 */
export async function dropStaleIndexerSchemas(query: Query, keep: string): Promise<string[]> {
  const { rows } = await query(
    `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'indexer\\_%' AND nspname <> '${keep.replaceAll("'", "''")}'`,
  );
  const dropped: string[] = [];
  for (const { nspname } of rows as { nspname: string }[]) {
    const schema = `"${nspname.replaceAll('"', '""')}"`;
    const meta = await query(`SELECT value FROM ${schema}."_ponder_meta" WHERE key = 'app'`).catch(() => ({
      rows: [],
    }));
    const app = meta.rows[0]?.value as { is_locked?: number; heartbeat_at?: number } | undefined;
    if (app?.is_locked === 1 && Date.now() - (app.heartbeat_at ?? 0) < LIVE_HEARTBEAT_MS) continue;
    await query(`DROP SCHEMA ${schema} CASCADE`);
    dropped.push(nspname);
  }
  return dropped;
}
