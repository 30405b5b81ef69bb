import type { Logger } from "pino";
import type { Erc8004Actions } from "./chain/erc8004-actions.ts";
import type { EscrowActions } from "./chain/escrow-actions.ts";
import type { HostedSender } from "./chain/hosted-sender.ts";
import type { ChainReader } from "./chain/reader.ts";
import type { Relayer } from "./chain/relayer.ts";
import type { UsdcActions } from "./chain/usdc-actions.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/client.ts";
import type { IndexedBlocks } from "./db/indexed-blocks.ts";
import type { ListingIndexSync } from "./domain/reads/listing-index-sync.ts";
import type { ReadCache } from "./domain/reads/read-cache.ts";
import type { KeyHolders } from "./rate-limit/key-holders.ts";
import type { RateLimitStore } from "./rate-limit/store.ts";

/** What the app is built from: real parts in production and in tests alike. */
export interface Deps {
  config: Config;
  db: Database;
  /**
   * A second pool whose prepared statements keep one generic plan (createDatabase's genericPlans):
   * browse runs the statements whose best plan does not depend on their values there, planned once
   * instead of on every request. Without it, they run on `db`.
   */
  genericPlansDb?: Database;
  chain: ChainReader;
  relayer: Relayer;
  escrow: EscrowActions;
  usdc: UsdcActions;
  arbiterRelayer?: Relayer;
  erc8004: Erc8004Actions;
  hostedSender: HostedSender;
  indexed: IndexedBlocks;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  /** Who holds an API key, for the request budget; createApp makes one if absent. */
  keyHolders?: KeyHolders;
  /** Public read answers cached for a moment; createApp makes one from the config if absent. */
  readCache?: ReadCache;
  /**
   * The listings browse can show, kept in this process's memory (BROWSE_INDEX=memory): createApp
   * makes one if absent. Without it, browse reads every page by SQL.
   */
  listingIndex?: ListingIndexSync;
}
