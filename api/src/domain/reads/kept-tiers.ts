import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import { reputationTierSql, successPercentSql } from "../shared/reputation.ts";
import { type AgentScope, inScopeSql, isEmptyScope } from "./agent-scope.ts";
import { completedSql, ratedSql, recordOn, successesSql, volumeSql } from "./track-record.ts";

/*
 * app.agents.reputation_tier, rated_deals and success_percent: the tier, rated deals and success
 * rate of each agent's kept record (app.agent_records), under the rule of shared/reputation.ts,
 * kept so that a page of listing cards reads its sellers' figures instead of working each one out
 * from its record (two lookups and the rule per listing, about a quarter of a browse's time in
 * Postgres). Profiles, details and reputation still work them out from the record itself.
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
 * Sets reputation_tier, rated_deals and success_percent from the kept record for the agents in
 * `scope`, or for every agent without it; answers how many agents' figures changed.
 */
export async function refreshKeptTiers(db: Runner, scope?: AgentScope): Promise<number> {
  if (scope && isEmptyScope(scope)) return 0;
  const record = { completed: completedSql, rated: ratedSql, successes: successesSql, volumeWei: volumeSql };
  const only = scope ? sql`WHERE ${inScopeSql(agents.id, scope)}` : sql``;
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT ${KEPT_TIERS_LOCK}`);
    const result = await tx.execute(sql`
      UPDATE ${agents} AS kept
      SET reputation_tier = fresh.tier, rated_deals = fresh.rated, success_percent = fresh.percent
      FROM (
        SELECT ${agents.id} AS id, ${reputationTierSql(record)} AS tier, (${ratedSql})::int AS rated,
          ${successPercentSql(record)} AS percent
        FROM ${agents} LEFT JOIN ${agentRecords} ON ${recordOn}
        ${only}
      ) AS fresh
      WHERE kept.id = fresh.id
        AND (kept.reputation_tier, kept.rated_deals, kept.success_percent) IS DISTINCT FROM (fresh.tier, fresh.rated, fresh.percent)`);
    return result.rowCount ?? 0;
  });
}
