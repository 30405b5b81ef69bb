import type { Database } from "./db/client.ts";
import { applyMigrations } from "./db/migrate.ts";
import { keepListingCards } from "./domain/reads/listing-cards.ts";

/**
 * Brings a database up to date: the versioned migrations of src/db/migrations that it has not seen
 * yet, then the objects written from the code (the stored listing cards' function and trigger,
 * domain/reads/listing-cards.ts), under one lock. Every process and test that opens a database runs it.
 */
export function migrateDatabase(db: Database): Promise<void> {
  return applyMigrations(db, (client) => keepListingCards(client));
}
