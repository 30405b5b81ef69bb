import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { isTimestampPosition } from "../db/keyset.ts";
import { badRequest } from "./errors.ts";
import { decodeCursor, encodeCursor, isUuid } from "./request.ts";

/*
 * Pages newest first by (created_at, id): the condition a `cursor` from the client adds, and the
 * `next_cursor` of a page read with `limit + 1` rows. Shared by every such list.
 */

/** Rows older than the cursor's position; undefined without a cursor; 400 for one we did not make. */
export function olderThanCursor(createdAt: AnyColumn, id: AnyColumn, cursor: string | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const position = decodeCursor(cursor);
  if (!isTimestampPosition(position.at) || !isUuid(position.id)) throw badRequest("Invalid cursor");
  return sql`(${createdAt}, ${id}) < (${position.at}::timestamptz, ${position.id}::uuid)`;
}

/** The first `limit` rows and the cursor after the last of them (null when no row follows). */
export function keysetPage<T>(rows: T[], limit: number, positionOf: (row: T) => { at: string; id: string }) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(positionOf(last)) : null };
}
