/**
 * `pnpm start`: the whole marketplace on one machine.
 *
 *   Postgres   embedded (data in <DATA_DIR>/postgres, port PG_PORT), unless DATABASE_URL is set
 *   chain      a Hardhat node on 127.0.0.1:HARDHAT_PORT with the contracts deployed, unless RPC_URL is set
 *   indexer    `ponder start` on INDEXER_PORT, into a schema named after the build and the chain
 *   API        in this process, on API_PORT
 *
 * It runs until Ctrl-C or SIGTERM, then stops the API, the indexer, the node and Postgres in that
 * order and exits 0. If a part dies, it stops the rest and exits 1, naming the part's log.
 *
 * Ctrl-C reaches every process of the terminal's foreground group at once, so the parts would
 * stop in no particular order (Postgres before the indexer has released its lock). Hence two
 * processes: this script as started (the supervisor) only relays the signals to a copy of itself
 * started in a session of its own (the runner), which owns the parts and stops them in order. The
 * runner also stops everything if the supervisor disappears.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalNode } from "@agent-marketplace/contracts/local-chain";
import type { LocalPostgres } from "@agent-marketplace/indexer/local-postgres";
import type { IndexerProcess } from "@agent-marketplace/indexer/process";
import type { RunningServer } from "../src/server.ts";

// Only Node's own modules are imported up front; the parts are loaded once the ports are known
// to be free, so that a second `pnpm start` fails at once.

const RUNNER_FLAG = "AGENT_MARKETPLACE_STACK_RUNNER";

/** Starts the runner in its own session and relays Ctrl-C, SIGTERM and SIGHUP to it. */
function supervise(): void {
  const runner = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [RUNNER_FLAG]: "1" },
  });
  const relay = () => {
    if (runner.exitCode === null && runner.signalCode === null) runner.kill("SIGTERM");
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, relay);
  // Whoever started us died without a signal (killed outright): stop the stack all the same.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) relay();
  }, 1000).unref();
  runner.on("exit", (code) => process.exit(code ?? 1));
}

/** Reads a port from the environment. */
function portOf(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new StartError(`${name}=${raw} is not a port`);
  return port;
}

/** A failure to report in one line, without a stack trace. */
class StartError extends Error {}

/** Why a port cannot be listened on (on 127.0.0.1), or undefined when it is free. */
function portProblem(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Resolves with the promise's value, or after `ms` with undefined. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function run(): Promise<void> {
  /** How often a minute Postgres or the indexer may be started again before the stack gives up (0: never). */
  const restartsPerMinute = Number(process.env.RESTARTS_PER_MINUTE || 3);
  if (!Number.isInteger(restartsPerMinute) || restartsPerMinute < 0) {
    throw new StartError(`RESTARTS_PER_MINUTE=${process.env.RESTARTS_PER_MINUTE} is not a whole number of 0 or more`);
  }
  const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
  // A relative DATA_DIR is read from where `pnpm start` was typed (pnpm runs this script in api/).
  const dataDir = process.env.DATA_DIR
    ? path.resolve(process.env.INIT_CWD || process.cwd(), process.env.DATA_DIR)
    : path.join(repoRoot, ".data");
  /** A path as the developer would type it: relative to the repository when inside it. */
  const shown = (file: string) => {
    const relative = path.relative(repoRoot, file);
    return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
  };
  const lockFile = path.join(dataDir, "stack.pid");
  const logs = {
    postgres: path.join(dataDir, "postgres.log"),
    node: path.join(dataDir, "hardhat-node.log"),
    indexer: path.join(dataDir, "indexer.log"),
  };

  const parts: { api?: RunningServer; indexer?: IndexerProcess; node?: LocalNode; postgres?: LocalPostgres } = {};
  /**
   * Releases the indexer's lock on its schema once it has exited. Ponder leaves it set when it
   * stops, so the next start could neither drop that schema (a fresh local chain) nor resume in
   * it (RPC_URL) until the lock's heartbeat expired.
   */
  let releaseIndexerLock: (() => Promise<void>) | undefined;
  /** Stops the running indexer, if any, and starts a new one on its schema (set once it has started). */
  let replaceIndexer: (() => Promise<ChildProcess>) | undefined;
  let holdsLock = false;
  let starting = true;
  let stopping = false;
  /** Set when a stop is asked for while the parts are still starting. */
  let pendingStop: { code: number } | undefined;
  let wakeStartup: () => void = () => {};
  const startupInterrupted = new Promise<void>((resolve) => {
    wakeStartup = resolve;
  });

  async function shutdown(code: number): Promise<never> {
    if (stopping) return new Promise<never>(() => {});
    stopping = true;
    if (!Object.values(parts).some(Boolean)) {
      if (holdsLock) rmSync(lockFile, { force: true });
      process.exit(code);
    }
    console.log(code === 0 ? "\nStopping: API, indexer, chain, Postgres..." : "Stopping the other parts...");
    const steps: [string, (() => Promise<unknown>) | undefined][] = [
      ["API", parts.api && (() => parts.api?.close() as Promise<void>)],
      [
        "indexer",
        parts.indexer &&
          (async () => {
            if ((await within(parts.indexer?.stop("SIGTERM") as Promise<void>, 20_000)) === undefined) {
              await parts.indexer?.stop("SIGKILL");
            }
            return true;
          }),
      ],
      [
        "indexer lock",
        releaseIndexerLock &&
          (async () => {
            const child = parts.indexer?.process;
            if (child?.exitCode === null && child.signalCode === null) return;
            await releaseIndexerLock?.().catch((error: Error) =>
              console.error(`  could not release the indexer's lock (${error.message}); it expires in a minute`),
            );
          }),
      ],
      [
        "Hardhat node",
        parts.node &&
          (async () => {
            if ((await within(parts.node?.stop() as Promise<void>, 10_000)) === undefined) {
              parts.node?.process.kill("SIGKILL");
            }
            return true;
          }),
      ],
      [
        "Postgres",
        parts.postgres &&
          (async () => {
            await parts.postgres?.stop();
          }),
      ],
    ];
    for (const [name, stop] of steps) {
      if (!stop) continue;
      try {
        if (
          (await within(
            stop().then(() => true),
            30_000,
          )) === undefined
        ) {
          console.error(`  ${name} did not stop within 30 s`);
          code = code || 1;
        }
      } catch (error) {
        console.error(`  ${name} stopped with an error: ${(error as Error).message}`);
        code = code || 1;
      }
    }
    if (holdsLock) rmSync(lockFile, { force: true });
    console.log(code === 0 ? `Stopped. Data kept in ${shown(dataDir)}` : "Stopped.");
    process.exit(code);
  }

  function requestStop(code: number, message?: string): void {
    if (stopping || pendingStop) return;
    if (message) console.error(`\n${message}`);
    if (starting) {
      pendingStop = { code };
      if (code === 0) console.log("\nStopping once the current step is done...");
      wakeStartup();
      return;
    }
    void shutdown(code);
  }

  /** When each restartable part last exited unexpectedly (the last minute's), by name. */
  const crashes = new Map<string, number[]>();
  /** Processes the runner stopped itself to start them again: their exit is no crash. */
  const replaced = new WeakSet<ChildProcess>();
  /**
   * A part that exits while it should be running. Postgres and the indexer are started again in
   * place once the stack is up (the API's requests answer 503 meanwhile, and the indexer resumes
   * from its checkpoint); one that dies more than restartsPerMinute times in a minute, fails to
   * come back, or dies during the startup, and any other part, brings the stack down.
   */
  function watch(
    child: ChildProcess | undefined,
    name: string,
    log: string,
    restart?: () => Promise<ChildProcess | undefined>,
  ): void {
    child?.once("exit", (code, signal) => {
      const how = signal ?? `code ${code}`;
      if (stopping || replaced.has(child)) return;
      const recent = [...(crashes.get(name) ?? []), Date.now()].filter((at) => at > Date.now() - 60_000);
      crashes.set(name, recent);
      if (!restart || starting || recent.length > restartsPerMinute) {
        const often =
          recent.length > 1 && recent.length > restartsPerMinute ? ` ${recent.length} times in a minute` : "";
        requestStop(1, `${name} exited unexpectedly${often} (${how}); see ${shown(log)}`);
        return;
      }
      console.error(`\n${name} exited unexpectedly (${how}); starting it again (log: ${shown(log)})...`);
      restart().then(
        (next) => {
          if (stopping) return;
          console.log(`${name} is running again.`);
          watch(next, name, log, restart);
        },
        (error: Error) => requestStop(1, `${name} did not start again: ${error.message}; see ${shown(log)}`),
      );
    });
  }

  /** Until Postgres answers at `url` (it may be restarting), for at most `ms`. */
  async function databaseAnswers(url: string, ms = 60_000): Promise<void> {
    const { default: pg } = await import("pg");
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

  /** Throws to end the startup when a stop was asked for meanwhile. */
  const checkpoint = () => {
    if (pendingStop) throw pendingStop;
  };

  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => requestStop(0));
  // A closed terminal or pipe must not crash the runner before it has stopped the parts.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  // The supervisor is gone (killed, or its terminal closed): stop too.
  process.on("disconnect", () => requestStop(1, "The supervising process disappeared."));

  try {
    const external = { databaseUrl: process.env.DATABASE_URL || undefined, rpcUrl: process.env.RPC_URL || undefined };
    const ports = {
      postgres: portOf("PG_PORT", 54329),
      node: portOf("HARDHAT_PORT", 8545),
      indexer: portOf("INDEXER_PORT", 42069),
      api: portOf("API_PORT", 3000),
    };

    // 1. Nothing is touched before we know the ports are ours: a second `pnpm start` stops here.
    const wanted: [string, string, number][] = [
      ["API", "API_PORT", ports.api],
      ["indexer", "INDEXER_PORT", ports.indexer],
    ];
    if (!external.rpcUrl) wanted.push(["Hardhat node", "HARDHAT_PORT", ports.node]);
    if (!external.databaseUrl) wanted.push(["Postgres", "PG_PORT", ports.postgres]);
    const busy: string[] = [];
    for (const [name, variable, port] of wanted) {
      const problem = await portProblem(port);
      if (problem) {
        busy.push(`  ${port} (${name}, ${variable}): ${problem === "EADDRINUSE" ? "in use" : problem}`);
      }
    }
    if (busy.length > 0) {
      throw new StartError(
        `Cannot start: these ports are not free on 127.0.0.1:\n${busy.join("\n")}\n` +
          "Is the stack already running (another `pnpm start`)? Stop it, or choose other ports " +
          "with the variables above.",
      );
    }
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx" });
    } catch {
      const holder = Number(readFileSync(lockFile, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new StartError(
          `Cannot start: another \`pnpm start\` (process ${holder}) is using ${shown(dataDir)}. ` +
            "Stop it first, or give this one another DATA_DIR.",
        );
      }
      writeFileSync(lockFile, `${process.pid}\n`);
    }
    holdsLock = true;

    const { deploymentFile, deploymentsDir, LOCAL_CHAIN_ID, readDeployment } = await import(
      "@agent-marketplace/contracts"
    );
    const { chainIdAt, deployLocalMarketplace, startHardhatNode } = await import(
      "@agent-marketplace/contracts/local-chain"
    );
    const { dropStaleIndexerSchemas, schemaNameFor, startIndexer } = await import("@agent-marketplace/indexer/process");
    const { default: pg } = await import("pg");
    const { createPublicClient, http } = await import("viem");
    const { loadConfig } = await import("../src/config.ts");
    const { startServer } = await import("../src/server.ts");

    // 2. Postgres.
    let databaseUrl = external.databaseUrl;
    if (!databaseUrl) {
      console.log(`Starting Postgres on port ${ports.postgres} (data: ${shown(path.join(dataDir, "postgres"))})...`);
      const postgresDir = path.join(dataDir, "postgres");
      if (!existsSync(path.join(postgresDir, "PG_VERSION")))
        console.log("  creating the Postgres cluster (first start)...");
      const { startLocalPostgres } = await import("@agent-marketplace/indexer/local-postgres");
      const postgresOptions = {
        dataDir: postgresDir,
        port: ports.postgres,
        persistent: true,
        logFile: logs.postgres,
        ownSignals: true,
      };
      parts.postgres = await startLocalPostgres(postgresOptions).catch((error: Error) => {
        throw new StartError(`${error.message}; see ${shown(logs.postgres)}`);
      });
      databaseUrl = parts.postgres.url;
      // A crashed cluster recovers from its write-ahead log on the next start.
      watch(parts.postgres.process(), "Postgres", logs.postgres, async () => {
        parts.postgres = await startLocalPostgres(postgresOptions);
        // Ponder commits with synchronous_commit off: its last blocks may have died with Postgres
        // while the running indexer counts them as done. Started again, it resumes from the
        // checkpoint the database kept and indexes them anew.
        if (replaceIndexer) {
          console.log("Starting the indexer again on the recovered database...");
          watch(await replaceIndexer(), "The indexer", logs.indexer, replaceIndexer);
        }
        return parts.postgres.process();
      });
    }
    checkpoint();

    // 3. The chain and the contracts.
    let rpcUrl = external.rpcUrl;
    if (!rpcUrl) {
      console.log(`Starting a Hardhat node on port ${ports.node}...`);
      try {
        parts.node = await startHardhatNode({ port: ports.node, logFile: logs.node });
      } catch (error) {
        throw new StartError(`The Hardhat node did not start: ${(error as Error).message}; see ${shown(logs.node)}`);
      }
      watch(parts.node.process, "The Hardhat node", logs.node);
      rpcUrl = parts.node.rpcUrl;
    }
    checkpoint();
    const chainId = await chainIdAt(rpcUrl);
    if (chainId === undefined) throw new StartError(`No chain answers at RPC_URL=${rpcUrl}`);
    if (process.env.CHAIN_ID && Number(process.env.CHAIN_ID) !== chainId) {
      throw new StartError(`CHAIN_ID=${process.env.CHAIN_ID}, but the chain at ${rpcUrl} is chain ${chainId}`);
    }
    const local = chainId === LOCAL_CHAIN_ID;
    const deployments = deploymentsDir();
    let deployment = readDeployment(chainId, deployments);
    if (local) {
      console.log("Deploying the contracts (kept if already on this chain)...");
      deployment = await deployLocalMarketplace({ rpcUrl, deploymentsDir: process.env.DEPLOYMENTS_DIR || undefined });
    } else if (!deployment) {
      throw new StartError(
        `No deployment for chain ${chainId} in ${deploymentFile(chainId, deployments)}: deploy the contracts first (README, Deployments).`,
      );
    }
    checkpoint();

    // 4. The indexer, into a schema of this build and this chain instance.
    const deploymentJson = readFileSync(deploymentFile(chainId, deployments), "utf8");
    const startBlock = await createPublicClient({ transport: http(rpcUrl) }).getBlock({
      blockNumber: BigInt(deployment.contracts.AgentEscrow.startBlock),
    });
    const schema = process.env.DATABASE_SCHEMA || schemaNameFor(deploymentJson, startBlock.hash);
    console.log(`Starting the indexer on port ${ports.indexer} (schema ${schema}, log: ${shown(logs.indexer)})...`);
    const indexerOptions = {
      databaseUrl,
      schema,
      chainId,
      rpcUrl,
      deploymentsDir: process.env.DEPLOYMENTS_DIR || undefined,
      port: ports.indexer,
      logFile: logs.indexer,
    };
    parts.indexer = startIndexer(indexerOptions);
    // Started again on its schema, it resumes from its checkpoint. One replacement at a time: the
    // running process (if any) is stopped, Postgres answers (it may itself be coming back), and the
    // old process's lock on the schema is released.
    let replacing: Promise<unknown> = Promise.resolve();
    replaceIndexer = () => {
      const next = replacing.then(async () => {
        const old = parts.indexer;
        if (old && old.process.exitCode === null && old.process.signalCode === null) {
          replaced.add(old.process);
          await old.stop("SIGKILL");
        }
        await databaseAnswers(indexerOptions.databaseUrl);
        await releaseIndexerLock?.();
        parts.indexer = startIndexer(indexerOptions);
        return parts.indexer.process;
      });
      replacing = next.catch(() => {});
      return next;
    };
    watch(parts.indexer.process, "The indexer", logs.indexer, replaceIndexer);
    await Promise.race([
      parts.indexer.ready(24 * 60 * 60 * 1000).catch((error: Error) => {
        throw new StartError(`${error.message}; see ${shown(logs.indexer)}`);
      }),
      startupInterrupted,
    ]);
    // Ponder is ready once its backfill is done; the last blocks it indexes live. Announce the stack
    // only when the views show the chain as it is now.
    {
      const { waitForIndexedBlock } = await import("@agent-marketplace/indexer");
      const head = await createPublicClient({ transport: http(rpcUrl) }).getBlockNumber();
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const caughtUp = await waitForIndexedBlock((sql) => db.query(sql), chainId, head, { timeoutMs: 120_000 });
        if (!caughtUp) throw new StartError(`The indexer did not reach block ${head}; see ${shown(logs.indexer)}`);
      } finally {
        await db.end();
      }
    }
    // Ready: the indexer holds the schema's lock (no other indexer does).
    releaseIndexerLock = async () => {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        await db.query(
          `UPDATE "${schema.replaceAll('"', '""')}"._ponder_meta SET value = jsonb_set(value, '{is_locked}', to_jsonb(0)) WHERE key = 'app'`,
        );
      } finally {
        await db.end();
      }
    };
    checkpoint();
    if (local) {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const dropped = await dropStaleIndexerSchemas((sql) => db.query(sql), schema);
        if (dropped.length > 0) console.log(`Dropped the schemas of earlier local chains: ${dropped.join(", ")}`);
      } finally {
        await db.end();
      }
    }
    checkpoint();

    // 5. The API, in this process.
    const masterKey = process.env.MASTER_KEY || readOrCreateMasterKey(path.join(dataDir, "master.key"));
    // The arbiter's desk key (resolves disputes); on the local chain, one is made and kept like the master key.
    const arbiterKey =
      process.env.ARBITER_API_KEY ||
      (local ? readOrCreateMasterKey(path.join(dataDir, "arbiter.key")).replace(/^0x/, "").toLowerCase() : undefined);
    parts.api = await startServer(
      loadConfig({
        ...process.env,
        DATABASE_URL: databaseUrl,
        RPC_URL: rpcUrl,
        CHAIN_ID: String(chainId),
        MASTER_KEY: masterKey,
        INDEXER_URL: `http://127.0.0.1:${ports.indexer}`,
        ...(arbiterKey && { ARBITER_API_KEY: arbiterKey }),
        PORT: String(ports.api),
      }),
    );
    checkpoint();
    starting = false;

    const api = parts.api.url;
    const pgShown = external.databaseUrl
      ? `${redact(databaseUrl)} (DATABASE_URL)`
      : `${databaseUrl}  (data: ${shown(path.join(dataDir, "postgres"))})`;
    const lines = [
      "",
      "════════════════════════════════════════════════════════════════════════════════",
      `  Agent marketplace is running on chain ${chainId}${local ? " (local Hardhat node)" : ""}`,
      "",
      `  API          ${api}`,
      `  Docs         ${api}/docs`,
      `  OpenAPI      ${api}/api/openapi.json`,
      `  Health       ${api}/api/health`,
      `  Indexer      ${parts.indexer.url}/status   (log: ${shown(logs.indexer)})`,
      `  RPC          ${rpcUrl}${parts.node ? `   (log: ${shown(logs.node)})` : " (RPC_URL)"}`,
      `  Postgres     ${pgShown}`,
      `  AgentEscrow  ${deployment.contracts.AgentEscrow.address}`,
      `  USDC         ${deployment.contracts.USDC.address}${local ? " (MockUSDC)" : ""}`,
      "",
    ];
    if (local) {
      lines.push(
        "  Dev accounts The node's accounts #0-#9 (mnemonic \"test test test test test test test test test",
        '               test test junk") hold 10,000 ETH and 10,000 USDC each. #0 is owner and fee',
        "               recipient, #1 the arbiter, #2 the operator.",
      );
    }
    if (parts.node) {
      lines.push(
        "  Restarts     Agents, keys and listings stay in Postgres. The Hardhat node keeps no state:",
        "               each start deploys the contracts again, at the same addresses, on a fresh",
        "               chain, and the indexer indexes it into a fresh schema.",
      );
    }
    if (!process.env.MASTER_KEY) {
      lines.push(`  Master key   ${shown(path.join(dataDir, "master.key"))} (encrypts hosted agents' wallet keys)`);
    }
    if (local && !process.env.ARBITER_API_KEY) {
      lines.push(
        `  Arbiter key  ${shown(path.join(dataDir, "arbiter.key"))} (Bearer key of POST /api/transactions/{id}/resolve)`,
      );
    }
    lines.push(
      "",
      `  Press Ctrl-C to stop everything (data stays in ${shown(dataDir)}).`,
      "════════════════════════════════════════════════════════════════════════════════",
      "",
    );
    console.log(lines.join("\n"));
    if (pendingStop) await shutdown(pendingStop.code);
  } catch (error) {
    starting = false;
    if (pendingStop) await shutdown(pendingStop.code);
    console.error(
      error instanceof StartError ? error.message : `Start failed: ${(error as Error).stack ?? String(error)}`,
    );
    await shutdown(1);
  }
}

/** A 32-byte key kept in `file` (the master key, the arbiter's key), created (mode 0600) the first time. */
function readOrCreateMasterKey(file: string): string {
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  }
  const key = readFileSync(file, "utf8").trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) {
    throw new StartError(`${file} does not hold a master key (64 hex characters); set MASTER_KEY or restore it`);
  }
  return key;
}

/** A database URL without its password, for printing. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(DATABASE_URL)";
  }
}

// Last, once every declaration above is initialised.
if (process.env[RUNNER_FLAG] === "1") {
  await run();
} else {
  supervise();
}
