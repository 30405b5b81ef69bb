import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import pino from "pino";
import { createApp } from "./app.ts";
import { repeatEvery } from "./background/repeat.ts";
import { refuseAnotherChain } from "./chain/connected-chain.ts";
import { createChainServices } from "./chain/services.ts";
import type { Config } from "./config.ts";
import { createDatabase } from "./db/client.ts";
import { refreshAgentRecords } from "./domain/agents/agent-records.ts";
import { pruneProfileChanges } from "./domain/reads/kept-profiles.ts";
import { KEPT_TIERS_FULL_REFRESH_MS } from "./domain/reads/kept-tiers.ts";
import { sellerSuffixSql } from "./domain/reads/listing-browse.ts";
import { BROWSE_CHANGES_PRUNE_MS, listingIndexSync, pruneBrowseChanges } from "./domain/reads/listing-index-sync.ts";
import { ReadCache } from "./domain/reads/read-cache.ts";
import { startDuties } from "./keeper/duties.ts";
import { migrateDatabase } from "./migrate.ts";
import { PostgresRateLimitStore, SharedRateLimitStore } from "./rate-limit/store.ts";

/** How long closing waits for open requests before it ends every connection (live streams too). */
const CLOSE_GRACE_MS = 2_000;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Connects (to a node of CHAIN_ID's chain only), migrates and listens. The rate limits live in
 * Postgres, shared by every instance.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  await refuseAnotherChain(config);
  const logger = pino({
    level: config.logLevel,
    base: { service: "api", ...(config.instance && { instance: config.instance }) },
  });
  const db = createDatabase(config.databaseUrl, {
    max: config.databasePoolSize,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
  });
  await migrateDatabase(db);
  // Every agent's record (its transactions' escrows), the platform totals and the kept tiers that
  // listing cards name: counted again before serving, then every minute (stopKeepingRecords).
  await refreshAgentRecords(db, config.chainId);
  const genericPlansDb = createDatabase(config.databaseUrl, {
    max: config.databasePoolSize,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    genericPlans: true,
  });
  const rateLimitStore = new SharedRateLimitStore(new PostgresRateLimitStore(db));
  // Before serving: the other instances count with this one from here on.
  await rateLimitStore.start();
  const services = await createChainServices(config, db);
  // Whatever a crash left between the outbox and the chain is sent or recorded before serving.
  const resumed = await services.relayer.resume();
  if (resumed > 0) logger.info({ resumed }, "relayer resumed unfinished transactions");
  const readCache = new ReadCache(config.browseCacheMs);
  // The listings browse can show, loaded before serving; each page then catches up on its own.
  const listingIndex = config.browseIndex === "memory" ? listingIndexSync(db, sellerSuffixSql) : undefined;
  await listingIndex?.check(undefined);
  const app = createApp({ config, db, genericPlansDb, ...services, logger, rateLimitStore, readCache, listingIndex });
  // The keeper's rounds, notifications and webhooks (off here when the keeper process runs them).
  const stopDuties = startDuties({ db, config, ...services, logger, readCache });
  const stopKeepingRecords = repeatEvery(
    KEPT_TIERS_FULL_REFRESH_MS,
    () => refreshAgentRecords(db, config.chainId),
    (error) => logger.error({ err: error }, "agent records refresh failed"),
    // Just refreshed before serving.
    KEPT_TIERS_FULL_REFRESH_MS,
  );
  // The listing indexes of every process read the changes since theirs, and kept profiles are
  // checked against those since they were built: the newest are kept.
  const stopPruning = repeatEvery(
    BROWSE_CHANGES_PRUNE_MS,
    () => Promise.all([pruneBrowseChanges(db), pruneProfileChanges(db)]),
    (error) => logger.error({ err: error }, "pruning browse or profile changes failed"),
  );
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  logger.info({ url }, "API listening");
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Requests in flight get a moment to finish; live streams never would.
        setTimeout(() => (server as Server).closeAllConnections(), CLOSE_GRACE_MS).unref();
      });
      await Promise.all([stopDuties, stopKeepingRecords, stopPruning].map((stop) => stop()));
      await rateLimitStore.close();
      await Promise.all([db.$client.end(), genericPlansDb.$client.end()]);
    },
  };
}
