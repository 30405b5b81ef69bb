import type { Config } from "../config.ts";
import type { UseCases } from "../domain/use-cases.ts";
import type { Guards } from "../http/guards.ts";
import type { ReadCache } from "../http/read-cache.ts";

/**
 * What a route module is built from: the use cases it calls, the guards it mounts, the settings
 * it shows and the cache of public reads. Never the database or the chain: those are the domain's.
 */
export interface RouteDeps {
  useCases: UseCases;
  guards: Guards;
  config: Config;
  readCache: ReadCache;
}
