import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { InvalidInputError } from "./errors.ts";
import { isUuid } from "./ids.ts";

/*
 * Keyset pagination: the one cursor codec of every list. Cursors are opaque to clients.
 *
 * On timestamps: Postgres keeps microseconds, a JS Date only milliseconds: a
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

/** A page's cursor: the sort values and id of its last row, as base64url JSON. */
export function encodeCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

/** The position a cursor of ours carries; {@link InvalidInputError} for anything else. */
export function decodeCursor(cursor: string): Record<string, string> & { id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.every(([, v]) => typeof v === "string")) return value as Record<string, string> & { id: string };
    }
  } catch {
    // fall through
  }
  throw new InvalidInputError("Invalid cursor");
}

/*
 * Pages newest first by (created_at, id): the condition a `cursor` from the client adds, and the
 * `next_cursor` of a page read with `limit + 1` rows. Shared by every such list.
 */

/** Rows older than the cursor's position; undefined without a cursor; 400 for one we did not make. */
export function olderThanCursor(createdAt: AnyColumn, id: AnyColumn, cursor: string | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const position = decodeCursor(cursor);
  if (!isTimestampPosition(position.at) || !isUuid(position.id)) throw new InvalidInputError("Invalid cursor");
  return sql`(${createdAt}, ${id}) < (${position.at}::timestamptz, ${position.id}::uuid)`;
}

/** The first `limit` rows and the cursor after the last of them (null when no row follows). */
export function keysetPage<T>(rows: T[], limit: number, positionOf: (row: T) => { at: string; id: string }) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(positionOf(last)) : null };
}
