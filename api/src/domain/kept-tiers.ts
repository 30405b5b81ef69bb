import { sql } from "drizzle-orm";
import { chainAccountStats } from "../db/chain-views.ts";
import type { Database } from "../db/client.ts";
import { agents } from "../db/schema.ts";
import { reputationTierSql } from "./reputation.ts";
import { completedSql, refundedSql, sellerRecordOn, volumeSql } from "./track-record.ts";

/*
 * app.agents.reputation_tier: the tier of each agent's indexed record (chain.account_stats), kept
 * so that a page of listing cards reads its sellers' tiers instead of working each one out from
 * its record (two lookups and the tier rule per listing, about a quarter of a browse's time in
 * Postgres). Profiles, details and reputation still work the tier out from the record itself.
 *
 * A record's tier inputs (completed, refunded, volume) change only when an escrow is released,
 * refunded or resolved: the escrow event notifier refreshes both parties' tiers in the transaction
 * that reads those events, so a card's tier follows the indexer within one notifier interval. Every
 * API start refreshes all agents before serving (a new local chain starts every record over), and
 * again every KEPT_TIERS_FULL_REFRESH_MS (a reorg may undo a settlement the notifier had read); so
 * does the notifier when the chain's events start over.
 */

/** How often every agent's kept tier is worked out again from its record. */
export const KEPT_TIERS_FULL_REFRESH_MS = 60_000;

/** What the refresh runs on: the database, or a transaction of it (the refresh is then a savepoint). */
type Runner = Pick<Database, "transaction">;

/**
 * Held by every refresh until its transaction ends: refreshes in several API processes (each
 * start's, the notifier's) update the same rows one after another, never in two orders at once.
 */
const KEPT_TIERS_LOCK = sql`pg_advisory_xact_lock(hashtext('app.agents.reputation_tier'))`;

/** The escrow events after which a party's tier may differ. */
export const TIER_EVENT_KINDS: ReadonlySet<string> = new Set(["RELEASED", "REFUNDED", "RESOLVED"]);

/**
 * Sets reputation_tier from the indexed record for the agents whose wallets are `addresses` (any
 * case), or for every agent without them; answers how many tiers changed. Nothing changes while
 * the indexer's views do not exist yet.
 */
export async function refreshKeptTiers(db: Runner, chainId: number, addresses?: readonly string[]): Promise<number> {
  if (addresses?.length === 0) return 0;
  const tier = reputationTierSql({ completed: completedSql, refunded: refundedSql, volumeWei: volumeSql });
  const only =
    addresses === undefined
      ? sql``
      : sql`WHERE lower(${agents.walletAddress}) = ANY(${sql.param(addresses.map((address) => address.toLowerCase()))}::text[])`;
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT ${KEPT_TIERS_LOCK}`);
      const result = await tx.execute(sql`
      UPDATE ${agents} AS kept SET reputation_tier = fresh.tier
      FROM (
        SELECT ${agents.id} AS id, ${tier} AS tier
        FROM ${agents} LEFT JOIN ${chainAccountStats} ON ${sellerRecordOn(chainId)}
        ${only}
      ) AS fresh
      WHERE kept.id = fresh.id AND kept.reputation_tier IS DISTINCT FROM fresh.tier`);
      return result.rowCount ?? 0;
    });
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name: the indexer has not published its views.
    const code =
      (error as { cause?: { code?: string }; code?: string }).cause?.code ?? (error as { code?: string }).code;
    if (code === "42P01" || code === "3F000") return 0;
    throw error;
  }
}
