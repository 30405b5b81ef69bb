/**
 * The keeper process: `pnpm --filter @agent-marketplace/api keeper`. In production the API's
 * processes only answer requests (KEEPER_INTERVAL_MS=0 and NOTIFY_INTERVAL_MS=0 in their
 * environment) and this one process does what happens without a request: the keeper's rounds,
 * notifications from indexed events and webhook deliveries (keeper/duties.ts). It reads the same
 * environment as the API (src/config.ts), applies the migrations like every process that opens the
 * database, and answers `GET /health` on KEEPER_PORT (default 3001) for its process manager: 200
 * while the database answers, 503 otherwise. SIGINT/SIGTERM: the current round finishes, then it exits.
 */
import { serve } from "@hono/node-server";
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import pino from "pino";
import { refuseAnotherChain } from "../chain/connected-chain.ts";
import { createChainServices } from "../chain/services.ts";
import { loadConfig } from "../config.ts";
import { createDatabase } from "../db/client.ts";
import { ReadCache } from "../domain/reads/read-cache.ts";
import { migrateDatabase } from "../migrate.ts";
import { startDuties } from "./duties.ts";

const DEFAULT_KEEPER_PORT = 3001;

const config = loadConfig();
const port = Number(process.env.KEEPER_PORT ?? DEFAULT_KEEPER_PORT);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  throw new Error(`Invalid configuration:\n  KEEPER_PORT: must be a port number, not "${process.env.KEEPER_PORT}"`);
}
if (config.keeperIntervalMs === 0 && config.notifyIntervalMs === 0) {
  throw new Error(
    "Invalid configuration:\n  KEEPER_INTERVAL_MS and NOTIFY_INTERVAL_MS are both 0: the keeper process would do nothing",
  );
}
const logger = pino({ level: config.logLevel, base: { service: "keeper" } });
await refuseAnotherChain(config);
const db = createDatabase(config.databaseUrl, { max: 4, queryTimeoutMs: config.databaseQueryTimeoutMs });
await migrateDatabase(db);
const services = await createChainServices(config, db);
// Whatever a crash left between the outbox and the chain is sent or recorded first.
const resumed = await services.relayer.resume();
if (resumed > 0) logger.info({ resumed }, "relayer resumed unfinished transactions");
const stopDuties = startDuties({ db, config, ...services, logger, readCache: new ReadCache(0) });

const health = new Hono().get("/health", async (c) => {
  const database = await db.execute(sql`SELECT 1`).then(
    () => true,
    () => false,
  );
  return c.json({ status: database ? "ok" : "down", database: { ok: database } }, database ? 200 : 503);
});
const server = serve({ fetch: health.fetch, hostname: config.host, port });
server.once("listening", () =>
  logger.info({ url: `http://${config.host}:${port}`, keeper_interval_ms: config.keeperIntervalMs }, "keeper running"),
);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  server.close();
  await stopDuties();
  await db.$client.end();
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
