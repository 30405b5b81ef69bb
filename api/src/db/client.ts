import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema.ts";

export type Database = NodePgDatabase<typeof schema> & { $client: pg.Pool };

/** numeric (OID 1700) stays a string: wei amounts do not fit a JS number. */
export function createDatabase(url: string, options: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 20 });
  // An idle connection that Postgres drops (a restart, a failover) must not crash the process: the
  // pool discards it and the next query opens a new one.
  pool.on("error", () => {});
  return drizzle(pool, { schema }) as Database;
}
