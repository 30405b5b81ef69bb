/**
 * The API on API_PORT (HOST its address), configured like `pnpm --filter @agent-marketplace/api
 * start` plus what the parts before it know (database, chain, indexer). With API_PROCESSES=1 (the
 * default) it is the server @agent-marketplace/api exports, in the runner's own process; with more,
 * it is that package's script run as a child process, the primary of API_PROCESSES processes on the
 * one port (api/src/cluster.ts): ready once all of them listen, stopped with SIGTERM (all of them
 * close), and if one of them dies the primary exits 1 and the stack stops, as when the one API
 * process fails. Its master key, and on the local chain the arbiter's desk key, are kept in the data
 * folder unless given.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiReadyMessage, RunningServer } from "@agent-marketplace/api";
import type { Settings } from "../settings.ts";
import { type Part, StartError, type Started, within } from "../supervisor.ts";
import type { Contracts } from "./contracts.ts";
import type { Indexer } from "./indexer.ts";
import type { Database } from "./postgres.ts";

/** How long the API processes have to close on SIGTERM before they are killed. */
const STOP_TIMEOUT_MS = 25_000;

export interface Api extends Part {
  /** How many API processes serve the port. */
  readonly processes: number;
  /** Known once started. */
  url(): string;
  /** The files that hold the keys the stack made (absent when given by the environment). */
  readonly keyFiles: { master?: string; arbiter?: string };
}

export function apiServer(
  settings: Settings,
  inputs: { database: Database; contracts: Contracts; indexer: Indexer },
): Api {
  const port = settings.ports.api;
  const masterKeyFile = settings.masterKey ? undefined : path.join(settings.dataDir, "master.key");
  const arbiterKeyFile = settings.arbiterApiKey ? undefined : path.join(settings.dataDir, "arbiter.key");
  let url: string | undefined;
  return {
    name: "The API",
    shortName: "API",
    ports: [{ name: "API", variable: "API_PORT", port }],
    keyFiles: { master: masterKeyFile, arbiter: arbiterKeyFile },
    processes: settings.apiProcesses,
    url() {
      if (!url) throw new Error("The API has not started");
      return url;
    },
    async start() {
      const { rpcUrl, chainId, local } = inputs.contracts.deployed();
      const masterKey = settings.masterKey ?? readOrCreateKey(masterKeyFile as string);
      // The arbiter's desk key (resolves disputes); on the local chain, one is made and kept like the master key.
      const arbiterKey =
        settings.arbiterApiKey ??
        (local
          ? readOrCreateKey(arbiterKeyFile as string)
              .replace(/^0x/, "")
              .toLowerCase()
          : undefined);
      const env = {
        ...process.env,
        DATABASE_URL: inputs.database.apiUrl(),
        RPC_URL: rpcUrl,
        CHAIN_ID: String(chainId),
        MASTER_KEY: masterKey,
        INDEXER_URL: inputs.indexer.url,
        ...(arbiterKey && { ARBITER_API_KEY: arbiterKey }),
        PORT: String(port),
        API_PROCESSES: String(settings.apiProcesses),
      };
      if (settings.apiProcesses > 1) {
        console.log(`Starting ${settings.apiProcesses} API processes on port ${port}...`);
        return startCluster(env, (ready) => {
          url = ready;
        });
      }
      const { loadConfig, startServer } = await import("@agent-marketplace/api");
      const running: RunningServer = await startServer(loadConfig(env));
      url = running.url;
      return { stop: () => running.close() };
    },
  };
}

/**
 * The API's own script as the primary of API_PROCESSES processes: its logs go where the runner's
 * go, and it tells over IPC when every process listens (`onReady` gets the URL then).
 */
function startCluster(env: NodeJS.ProcessEnv, onReady: (url: string) => void): Started {
  const script = fileURLToPath(import.meta.resolve("@agent-marketplace/api/main"));
  const child: ChildProcess = fork(script, [], { env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.on("message", (message: ApiReadyMessage) => {
      if (message?.type !== "api-ready") return;
      onReady(message.url);
      resolve();
    });
    child.once("exit", (code, signal) =>
      reject(new StartError(`The API processes exited before they all listened (${signal ?? `code ${code}`})`)),
    );
  });
  // A rejection after the stack stopped it is nobody's concern.
  ready.catch(() => {});
  return {
    process: child,
    ready,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      if (
        !(await within(
          exited.then(() => true),
          STOP_TIMEOUT_MS,
        ))
      ) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}

/** A 32-byte key kept in `file` (the master key, the arbiter's key), created (mode 0600) the first time. */
function readOrCreateKey(file: string): string {
  if (!existsSync(file)) {
    writeFileSync(file, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  }
  const key = readFileSync(file, "utf8").trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) {
    throw new StartError(`${file} does not hold a master key (64 hex characters); set MASTER_KEY or restore it`);
  }
  return key;
}
