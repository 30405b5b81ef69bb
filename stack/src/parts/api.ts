/**
 * The API, in the runner's own process, on API_PORT (HOST its address): the server
 * @agent-marketplace/api exports, configured like `pnpm --filter @agent-marketplace/api start`
 * plus what the parts before it know (database, chain, indexer). Its master key, and on the local
 * chain the arbiter's desk key, are kept in the data folder unless given.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RunningServer } from "@agent-marketplace/api";
import type { Settings } from "../settings.ts";
import { type Part, StartError } from "../supervisor.ts";
import type { Contracts } from "./contracts.ts";
import type { Indexer } from "./indexer.ts";
import type { Database } from "./postgres.ts";

export interface Api extends Part {
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
  let server: RunningServer | undefined;
  return {
    name: "The API",
    shortName: "API",
    ports: [{ name: "API", variable: "API_PORT", port }],
    keyFiles: { master: masterKeyFile, arbiter: arbiterKeyFile },
    url() {
      if (!server) throw new Error("The API has not started");
      return server.url;
    },
    async start() {
      const { loadConfig, startServer } = await import("@agent-marketplace/api");
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
      const running = await startServer(
        loadConfig({
          ...process.env,
          DATABASE_URL: inputs.database.url(),
          RPC_URL: rpcUrl,
          CHAIN_ID: String(chainId),
          MASTER_KEY: masterKey,
          INDEXER_URL: inputs.indexer.url,
          ...(arbiterKey && { ARBITER_API_KEY: arbiterKey }),
          PORT: String(port),
        }),
      );
      server = running;
      return { stop: () => running.close() };
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
