import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { keepListingCards } from "../domain/reads/listing-cards.ts";
import type { Database } from "./client.ts";

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));
/** Any constant: the advisory lock that lets one API instance at a time migrate. */
const MIGRATION_LOCK = 4_242_001;

/**
 * Applies the versioned migrations of src/db/migrations that the database has not seen yet, then
 * the objects written from the code (the stored listing cards' function and trigger).
 */
export async function migrateDatabase(db: Database): Promise<void> {
  const client = await db.$client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate(db, { migrationsFolder });
    await keepListingCards(client);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}
