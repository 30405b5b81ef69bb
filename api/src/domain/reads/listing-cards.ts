import { createHash } from "node:crypto";
import { type SQLWrapper, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type pg from "pg";
import { listingCardSql, listingFields } from "./listing-browse.ts";

/*
 * Each listing's part of its browse card (listingCardSql) is stored in app.listings.card_text, so a
 * page of 50 listings reads 50 texts instead of building them (about half of a browse's time in
 * Postgres). A trigger keeps it: whenever a listing is inserted, or a column the card shows is
 * updated, it calls app.listing_card, a function written here from listingCardSql. The card's SQL
 * so lives in one place, TypeScript; when it changes, the first process to start with the new code
 * writes the function again and recomputes every stored card, once (the function's comment holds a
 * hash of what was written).
 */

const dialect = new PgDialect();

/** The card's SQL over the row `l` (the function's argument), without parameters. */
function cardOfRowSql(): string {
  const row = {} as Record<keyof typeof listingFields, SQLWrapper>;
  for (const key of Object.keys(listingFields) as (keyof typeof listingFields)[]) {
    row[key] = sql.raw(`(l).${dialect.escapeName(listingFields[key].name)}`);
  }
  const { sql: text, params } = dialect.sqlToQuery(listingCardSql(row));
  if (params.length > 0) throw new Error("listingCardSql must not need parameters to be stored as a function");
  return text;
}

/** The function, the trigger and its function, as written to the database. */
function definitions(): string[] {
  // The listing columns the card is built from: an update of any of them builds it again.
  const columns = Object.values(listingFields)
    .map((column) => dialect.escapeName(column.name))
    .join(", ");
  return [
    `CREATE OR REPLACE FUNCTION app.listing_card(l app.listings) RETURNS text LANGUAGE sql STABLE AS $card$ SELECT ${cardOfRowSql()} $card$`,
    `CREATE OR REPLACE FUNCTION app.keep_listing_card() RETURNS trigger LANGUAGE plpgsql AS $keep$
      BEGIN NEW.card_text := app.listing_card(NEW); RETURN NEW; END $keep$`,
    `CREATE OR REPLACE TRIGGER listings_keep_card BEFORE INSERT OR UPDATE OF ${columns} ON app.listings
      FOR EACH ROW EXECUTE FUNCTION app.keep_listing_card()`,
  ];
}

/** Listings recomputed per statement: each statement stays well inside the pool's query timeout. */
const BATCH = 2_000;

/**
 * Writes the card's function and trigger and recomputes every stored card, unless the database
 * already has these very definitions. Run after the migrations (which add the column), under
 * their lock: one process at a time. The hash is written last: a start that stops halfway starts
 * over the next time.
 */
export async function keepListingCards(client: pg.PoolClient, batchSize = BATCH): Promise<{ rewritten: boolean }> {
  const written = definitions();
  const hash = createHash("sha256").update(written.join("\n")).digest("hex");
  const { rows } = await client.query<{ kept: string | null }>(
    `SELECT obj_description(to_regprocedure('app.listing_card(app.listings)'), 'pg_proc') AS kept`,
  );
  if (rows[0]?.kept === hash) return { rewritten: false };
  for (const statement of written) await client.query(statement);
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    // card_text is not among the trigger's columns: these updates do not fire it.
    const batch = await client.query<{ last: string | null }>(
      `WITH batch AS (SELECT id FROM app.listings WHERE id > $1 ORDER BY id LIMIT ${Number(batchSize)}),
        written AS (UPDATE app.listings SET card_text = app.listing_card(listings) FROM batch WHERE listings.id = batch.id)
      SELECT max(id::text COLLATE "C") AS last FROM batch`,
      [after],
    );
    const last = batch.rows[0]?.last;
    if (!last) break;
    after = last;
  }
  await client.query(`COMMENT ON FUNCTION app.listing_card(app.listings) IS '${hash}'`);
  return { rewritten: true };
}
