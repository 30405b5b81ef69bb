import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import { reputationTierSql } from "../shared/reputation.ts";
import { type AgentScope, inScopeSql, isEmptyScope } from "./agent-scope.ts";
import { completedSql, recordOn, refundedSql, volumeSql } from "./track-record.ts";

/*
 * app.agents.reputation_tier: the tier of each agent's kept record (app.agent_records), kept
 * so that a page of listing cards reads its sellers' tiers instead of working each one out from
 * its record (two lookups and the tier rule per listing, about a quarter of a browse's time in
 * Postgres). Profiles, details and reputation still work the tier out from the record itself.
 *
 * Every refresh of records (agent-records.ts) works out the tiers of the same agents in its
 * transaction: the escrow event notifier's for the parties of the events it reads, so a card's tier
 * follows the indexer within one notifier interval; every API start's for all agents before serving
 * (a new local chain starts every record over), and again every KEPT_TIERS_FULL_REFRESH_MS (a reorg
 * may undo a settlement the notifier had read); the notifier's when the chain's events start over.
 */

/** How often every agent's record (and so its kept tier) is counted again. */
export const KEPT_TIERS_FULL_REFRESH_MS = 60_000;

/** What the refresh runs on: the database, or a transaction of it (the refresh is then a savepoint). */
type Runner = Pick<Database, "transaction">;

/**
 * Held by every refresh until its transaction ends: refreshes in several API processes (each
 * start's, the notifier's) update the same rows one after another, never in two orders at once.
 */
const KEPT_TIERS_LOCK = sql`pg_advisory_xact_lock(hashtext('app.agents.reputation_tier'))`;

/**
 * Sets reputation_tier from the kept record for the agents in `scope`, or for every agent without
 * it; answers how many tiers changed.
 */
export async function refreshKeptTiers(db: Runner, scope?: AgentScope): Promise<number> {
  if (scope && isEmptyScope(scope)) return 0;
  const tier = reputationTierSql({ completed: completedSql, refunded: refundedSql, volumeWei: volumeSql });
  const only = scope ? sql`WHERE ${inScopeSql(agents.id, scope)}` : sql``;
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT ${KEPT_TIERS_LOCK}`);
    const result = await tx.execute(sql`
      UPDATE ${agents} AS kept SET reputation_tier = fresh.tier
      FROM (
        SELECT ${agents.id} AS id, ${tier} AS tier
        FROM ${agents} LEFT JOIN ${agentRecords} ON ${recordOn}
        ${only}
      ) AS fresh
      WHERE kept.id = fresh.id AND kept.reputation_tier IS DISTINCT FROM fresh.tier`);
    return result.rowCount ?? 0;
  });
}
