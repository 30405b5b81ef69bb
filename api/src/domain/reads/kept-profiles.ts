import { type SQL, sql } from "drizzle-orm";
import { chainAccountStats } from "../../db/chain-views.ts";
import { keepNewestChanges } from "../../db/change-logs.ts";
import type { Database } from "../../db/client.ts";
import { profileChanges, profileDocs } from "../../db/schema.ts";

/*
 * Kept profiles: each agent's public profile as the JSON it answers, and the fields its own profile
 * adds (app.profile_docs), so that a profile read is a few index lookups and the stored text, not
 * the agent's listings, transactions, escrows and disputes gathered and written out again (about
 * three quarters of its time).
 *
 * A kept profile is current while nothing it shows has changed since it was built:
 * - the app's side: no app.profile_changes row of the agent is newer than the newest version the
 *   building statement saw. Deferred triggers note every change a profile shows, in commit order
 *   (migration 0027), so a statement that sees version v sees every change up to v;
 * - the chain's side: the agent's chain.account_stats.last_event (the newest escrow event naming its
 *   wallet, buyer or seller) is the one the building statement saw;
 * - the escrow contract is the one its transactions name.
 * It is checked in the statement that reads it. One that is not current is built again from the
 * tables (agent-profile.ts) and stored in place of the old; two builders racing store whichever,
 * and the next read checks it like any other.
 */

/**
 * How many of the newest profile changes are kept; a profile built before them is built again, so
 * they should span more than the minute between prunings at a busy market's write rate (a purchase
 * is two changes: 100,000 is 800 purchases a second). About 13 MB with their indexes.
 */
export const PROFILE_CHANGES_KEPT = 100_000;

/** The newest profile change a statement sees (0 before the first): a body it builds is as of it. */
export const newestProfileChange: SQL<number> =
  sql<number>`(SELECT coalesce(max(${profileChanges.version}), 0) FROM ${profileChanges})`.mapWith(Number);

/**
 * Whether the kept profile joined as app.profile_docs (with the agent's chain.account_stats) is
 * current; null when there is none.
 */
export function keptProfileIsCurrent(escrowContract: string): SQL<boolean | null> {
  return sql<boolean | null>`(${profileDocs.escrowContract} = ${escrowContract}
    AND ${profileDocs.lastEvent} IS NOT DISTINCT FROM ${chainAccountStats.lastEvent}
    AND ${profileDocs.builtVersion} >= (SELECT coalesce(min(${profileChanges.version}), 1) - 1 FROM ${profileChanges})
    AND NOT EXISTS (SELECT FROM ${profileChanges}
                    WHERE ${profileChanges.agentId} = ${profileDocs.agentId} AND ${profileChanges.version} > ${profileDocs.builtVersion}))`;
}

/** A profile's body and own fields as built, and what they were built as of. */
export interface BuiltProfile {
  agentId: string;
  body: string;
  ownFields: string;
  builtVersion: number;
  lastEvent: string | null;
  escrowContract: string;
}

/** Stores a built profile in place of the agent's kept one, unless that one was built as of a newer change. */
export async function keepProfile(db: Database, built: BuiltProfile): Promise<void> {
  await db
    .insert(profileDocs)
    .values(built)
    .onConflictDoUpdate({
      target: profileDocs.agentId,
      set: {
        body: sql`excluded.body`,
        ownFields: sql`excluded.own_fields`,
        builtVersion: sql`excluded.built_version`,
        lastEvent: sql`excluded.last_event`,
        escrowContract: sql`excluded.escrow_contract`,
      },
      setWhere: sql`${profileDocs.builtVersion} <= excluded.built_version`,
    });
}

/** Forgets the profile changes but the newest `kept` (at least one): profiles built before them are built again. */
export function pruneProfileChanges(db: Database, kept = PROFILE_CHANGES_KEPT): Promise<void> {
  return keepNewestChanges(db, profileChanges, kept);
}
