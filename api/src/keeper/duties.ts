import type { Logger } from "pino";
import type { ChainServices } from "../chain/services.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { ReadCache } from "../domain/reads/read-cache.ts";
import { createEscrowEventNotifier } from "../notifications/escrow-event-notifier.ts";
import { createWebhookSender } from "../notifications/webhook-sender.ts";
import { apiPaths } from "../routes/paths.ts";
import { createKeeper } from "./keeper.ts";

export interface DutiesDeps extends ChainServices {
  db: Database;
  config: Config;
  logger: Logger;
  readCache: ReadCache;
}

/**
 * What the service does when nobody asks: the keeper's rounds (KEEPER_INTERVAL_MS: auto-release,
 * expiry refunds, reconciliation), indexed escrow events turned into notifications and due webhooks
 * sent (NOTIFY_INTERVAL_MS). Each is off at 0. The API process runs them by default; in production
 * the keeper process (keeper/main.ts) runs them and the API's are set to 0. Two processes running
 * them at once is safe (each send, notification and delivery is claimed in Postgres), only wasteful.
 * Returns the stop of all of them.
 */
export function startDuties(deps: DutiesDeps): () => Promise<void> {
  const { db, config, logger } = deps;
  const stops: Array<() => Promise<void>> = [];
  if (config.keeperIntervalMs > 0) {
    stops.push(createKeeper({ ...deps, paths: apiPaths }).start(config.keeperIntervalMs));
  }
  if (config.notifyIntervalMs > 0) {
    stops.push(createEscrowEventNotifier({ db, chainId: config.chainId, logger }).start(config.notifyIntervalMs));
    stops.push(createWebhookSender({ db, config, logger }).start(config.notifyIntervalMs));
  }
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
