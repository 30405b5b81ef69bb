import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema.ts";

export type Database = NodePgDatabase<typeof schema> & { $client: pg.Pool };

/** The handle a `db.transaction(...)` callback gets: what runs inside one database transaction. */
export type DbTransaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** numeric (OID 1700) stays a string: wei amounts do not fit a JS number. */
export function createDatabase(
  url: string,
  options: {
    max?: number;
    connectionTimeoutMs?: number;
    queryTimeoutMs?: number;
    /**
     * Prepared statements keep one generic plan instead of being planned again for each execution's
     * values (plan_cache_mode=force_generic_plan): for statements whose best plan does not depend on
     * their values. Never for a pool of ad-hoc queries: it applies to every parameterized statement.
     */
    genericPlans?: boolean;
  } = {},
): Database {
  // A request that cannot get a connection in time fails (503 busy) instead of waiting forever.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    // A query Postgres does not answer (stopped, cut off) fails after this (503), not never.
    query_timeout: options.queryTimeoutMs ?? 15_000,
    // Every statement of the API reads or writes a page of rows: a parallel plan would start worker
    // processes for each (tens of ms, taken from the other requests), so none is ever planned.
    options: `-c max_parallel_workers_per_gather=0${options.genericPlans ? " -c plan_cache_mode=force_generic_plan" : ""}`,
  });
  // An idle connection that Postgres drops (a restart, a failover) must not crash the process: the
  // pool discards it and the next query opens a new one.
  pool.on("error", () => {});
  // The same for a connection that is checked out (a transaction awaiting the chain, say): pg lets
  // the pool's listener go while a client is lent, and an 'error' with no listener ends the process.
  // The statement that was running fails on its own; the broken client is discarded on release.
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  return drizzle(pool, { schema }) as Database;
}
