import { type AnyColumn, type SQL, sql } from "drizzle-orm";

/*
 * Keyset pagination on timestamps. Postgres keeps microseconds, a JS Date only milliseconds: a
 * cursor made from a Date would skip (or repeat) rows created within the same millisecond, e.g. a
 * batch inserted by one statement. Cursors therefore carry the timestamp as Postgres renders it.
 */

/** The column as an ISO 8601 UTC string with microseconds, for a cursor. */
export function timestampPosition(column: AnyColumn | SQL): SQL<string> {
  return sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** Whether a cursor's timestamp is one {@link timestampPosition} could have produced (a real date). */
export function isTimestampPosition(value: string | undefined): value is string {
  if (value === undefined || !POSITION.test(value)) return false;
  const seconds = new Date(`${value.slice(0, 19)}Z`);
  // Date accepts 2026-02-30 (as March 2nd); Postgres would not: compare the round trip.
  return !Number.isNaN(seconds.getTime()) && seconds.toISOString().slice(0, 19) === value.slice(0, 19);
}
