import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type pg from "pg";
import type { Database } from "./client.ts";

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));
/** Any constant: the advisory lock that lets one API instance at a time migrate. */
const MIGRATION_LOCK = 4_242_001;

/** What runs after the migrations, under their lock, on their connection: objects written from code. */
export type AfterMigrations = (client: pg.PoolClient) => Promise<unknown>;

/**
 * Applies the versioned migrations of src/db/migrations that the database has not seen yet, then
 * `after`. The API migrates with src/migrate.ts, whose `after` writes the objects the code owns
 * (the stored listing cards' function and trigger): db/ knows nothing of them.
 */
export async function applyMigrations(db: Database, after?: AfterMigrations): Promise<void> {
  const client = await db.$client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate(db, { migrationsFolder });
    await after?.(client);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}
