import { sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "./client.ts";

/**
 * The app's change logs (app.browse_changes, app.profile_changes): rows numbered by `version` in
 * commit order, which readers compare the version they were built as of against.
 */
export type ChangeLog = PgTable & { version: AnyPgColumn };

/**
 * Forgets all but the newest `kept` changes of `log`, and never the newest one: an empty log would
 * not tell a reader built as of an older version that changes it never saw were forgotten.
 */
export async function keepNewestChanges(db: Database, log: ChangeLog, kept: number): Promise<void> {
  await db.delete(log).where(sql`${log.version} <= (SELECT max(${log.version}) FROM ${log}) - ${Math.max(1, kept)}`);
}
