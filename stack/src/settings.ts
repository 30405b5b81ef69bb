/**
 * What `pnpm start` reads from the environment, checked before anything starts. Every other
 * variable (DEPLOYMENTS_DIR, LOG_LEVEL, the API's settings) passes through to the parts.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StartError } from "./supervisor.ts";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export interface Settings {
  /** DATA_DIR: the Postgres cluster, the logs, the keys and the pid file (`.data`). */
  dataDir: string;
  /** Holds the runner's pid while a stack uses `dataDir`. */
  pidFile: string;
  logs: { postgres: string; node: string; indexer: string };
  ports: { postgres: number; node: number; indexer: number; api: number };
  /** DATABASE_URL: a Postgres of the developer's instead of the embedded one. */
  databaseUrl?: string;
  /** RPC_URL: a chain of the developer's instead of a Hardhat node. */
  rpcUrl?: string;
  /** CHAIN_ID: the chain RPC_URL must be, when set. */
  chainId?: string;
  /** DEPLOYMENTS_DIR: where the deployments files are (contracts/deployments). */
  deploymentsDir?: string;
  /** DATABASE_SCHEMA: the indexer's schema, instead of one named after the build and the chain. */
  databaseSchema?: string;
  /** MASTER_KEY: instead of the one kept in `<dataDir>/master.key`. */
  masterKey?: string;
  /** ARBITER_API_KEY: instead of the one kept in `<dataDir>/arbiter.key` on the local chain. */
  arbiterApiKey?: string;
  /** RESTARTS_PER_MINUTE: how often a minute Postgres or the indexer may be started again (0: never). */
  restartsPerMinute: number;
  /**
   * API_PROCESSES: how many API processes serve API_PORT (1..64). 1 runs the API in the runner's
   * own process; more run @agent-marketplace/api's cluster as a child process.
   */
  apiProcesses: number;
}

/** As @agent-marketplace/api's cluster allows. */
const MAX_API_PROCESSES = 64;

export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const restartsPerMinute = Number(env.RESTARTS_PER_MINUTE || 3);
  if (!Number.isInteger(restartsPerMinute) || restartsPerMinute < 0) {
    throw new StartError(`RESTARTS_PER_MINUTE=${env.RESTARTS_PER_MINUTE} is not a whole number of 0 or more`);
  }
  const rawProcesses = env.API_PROCESSES?.trim() || "1";
  const apiProcesses = Number(rawProcesses);
  if (!/^\d+$/.test(rawProcesses) || apiProcesses < 1 || apiProcesses > MAX_API_PROCESSES) {
    throw new StartError(
      `API_PROCESSES=${env.API_PROCESSES} is not a whole number from 1 to ${MAX_API_PROCESSES} (the API processes behind API_PORT)`,
    );
  }
  // A relative DATA_DIR is read from where `pnpm start` was typed (pnpm runs the stack in stack/).
  const dataDir = env.DATA_DIR
    ? path.resolve(env.INIT_CWD || process.cwd(), env.DATA_DIR)
    : path.join(repoRoot, ".data");
  return {
    dataDir,
    pidFile: path.join(dataDir, "stack.pid"),
    logs: {
      postgres: path.join(dataDir, "postgres.log"),
      node: path.join(dataDir, "hardhat-node.log"),
      indexer: path.join(dataDir, "indexer.log"),
    },
    ports: {
      postgres: portOf(env, "PG_PORT", 54329),
      node: portOf(env, "HARDHAT_PORT", 8545),
      indexer: portOf(env, "INDEXER_PORT", 42069),
      api: portOf(env, "API_PORT", 3000),
    },
    databaseUrl: env.DATABASE_URL || undefined,
    rpcUrl: env.RPC_URL || undefined,
    chainId: env.CHAIN_ID || undefined,
    deploymentsDir: env.DEPLOYMENTS_DIR || undefined,
    databaseSchema: env.DATABASE_SCHEMA || undefined,
    masterKey: env.MASTER_KEY || undefined,
    arbiterApiKey: env.ARBITER_API_KEY || undefined,
    restartsPerMinute,
    apiProcesses,
  };
}

function portOf(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new StartError(`${name}=${raw} is not a port`);
  return port;
}

/** A path as the developer would type it: relative to the repository when inside it. */
export function shown(file: string): string {
  const relative = path.relative(repoRoot, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}
