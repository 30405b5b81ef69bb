/**
 * The three services as separate processes with production settings, each started by the command
 * README's "Running in production" names: the API (`api/src/main.ts`), the indexer
 * (`indexer/scripts/start.ts`) and the keeper (`api/src/keeper/main.ts`). Secrets come from the
 * environment; NODE_ENV=production; off the local chain the API has no dev routes and no faucet.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { apiNodeFlags } from "@agent-marketplace/api/node-flags";
import { BASE_CHAIN_ID } from "@agent-marketplace/contracts";
import type { BaseChain } from "./base-chain.ts";
import { ServiceProcess } from "./service-process.ts";

export interface Ports {
  api: number;
  keeper: number;
  indexer: number;
}

export interface Services {
  api: ServiceProcess;
  indexer: ServiceProcess;
  keeper: ServiceProcess;
  apiUrl: string;
  /** The arbiter desk's Bearer key (ARBITER_API_KEY). */
  arbiterApiKey: string;
}

const script = (specifier: string) => fileURLToPath(import.meta.resolve(specifier));

export function productionServices(options: {
  base: BaseChain;
  databaseUrl: string;
  ports: Ports;
  logsDir: string;
}): Services {
  const { base, databaseUrl, ports, logsDir } = options;
  const arbiterApiKey = randomBytes(32).toString("hex");
  // What every process of the service shares: the database, the chain, the deployment, the secrets.
  const common: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "production",
    LOG_LEVEL: "info",
    DATABASE_URL: databaseUrl,
    CHAIN_ID: String(BASE_CHAIN_ID),
    RPC_URL: base.rpcUrl,
    DEPLOYMENTS_DIR: base.deploymentsDir,
    MASTER_KEY: randomBytes(32).toString("hex"),
    RELAYER_PRIVATE_KEY: base.keys.relayer,
    ARBITER_PRIVATE_KEY: base.keys.arbiter,
    ARBITER_API_KEY: arbiterApiKey,
    // The rehearsal's webhook receiver is on this machine (off the local chain the default refuses
    // loopback and private addresses); it always fails, so deliveries give up after two attempts.
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_MAX_ATTEMPTS: "2",
    WEBHOOK_RETRY_BASE_MS: "500",
  };
  const indexerUrl = `http://127.0.0.1:${ports.indexer}`;
  const apiUrl = `http://127.0.0.1:${ports.api}`;
  const api = new ServiceProcess({
    name: "the API",
    args: [...apiNodeFlags(""), script("@agent-marketplace/api/main")],
    env: {
      ...common,
      HOST: "127.0.0.1",
      PORT: String(ports.api),
      INDEXER_URL: indexerUrl,
      // The keeper process does what happens without a request.
      KEEPER_INTERVAL_MS: "0",
      NOTIFY_INTERVAL_MS: "0",
    },
    logFile: path.join(logsDir, "api.log"),
    readyUrl: `${apiUrl}/api/ready`,
  });
  const indexer = new ServiceProcess({
    name: "the indexer",
    args: [script("@agent-marketplace/indexer/start")],
    env: {
      ...common,
      INDEXER_PORT: String(ports.indexer),
      // Base makes a block every 2 s (the default, 1 s, suits it); the rehearsal's node one a write.
      POLLING_INTERVAL_MS: "250",
    },
    logFile: path.join(logsDir, "indexer.log"),
    readyUrl: `${indexerUrl}/ready`,
  });
  const keeper = new ServiceProcess({
    name: "the keeper",
    args: [script("@agent-marketplace/api/keeper")],
    env: { ...common, KEEPER_PORT: String(ports.keeper), KEEPER_INTERVAL_MS: "2000", NOTIFY_INTERVAL_MS: "500" },
    logFile: path.join(logsDir, "keeper.log"),
    readyUrl: `http://127.0.0.1:${ports.keeper}/health`,
  });
  return { api, indexer, keeper, apiUrl, arbiterApiKey };
}
