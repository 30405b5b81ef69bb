import type { Config } from "../config.ts";
import type { ReadCache } from "../domain/reads/read-cache.ts";
import type { UseCases } from "../domain/use-cases.ts";
import type { AppMetrics } from "../metrics/app-metrics.ts";

/**
 * What a route module is built from: the use cases it calls, the settings it shows, the cache
 * of public reads and the app's metrics. Never the database or the chain: those are the domain's. The guards a route
 * requires are declared in its definition (http/guards.ts `guard`).
 */
export interface RouteDeps {
  useCases: UseCases;
  config: Config;
  readCache: ReadCache;
  /** The app's Prometheus series that routes count themselves (open streams) and GET /metrics renders. */
  metrics: AppMetrics;
}
