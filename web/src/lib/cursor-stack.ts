/*
 * Cursor paging with "Previous page": the API pages forward only (next_cursor), so the page keeps
 * the cursors of the pages before the one shown. The first page's cursor is empty and never kept:
 * an empty stack on a later page means "previous" is the first page.
 */

export interface CursorPosition {
  /** The cursor of the page shown; "" for the first page. */
  cursor: string;
  /** The cursors of the earlier pages, past the first. */
  back: string[];
}

export function forward(position: CursorPosition, nextCursor: string): CursorPosition {
  return { cursor: nextCursor, back: position.cursor ? [...position.back, position.cursor] : [] };
}

export function backward(position: CursorPosition): CursorPosition {
  return { cursor: position.back.at(-1) ?? "", back: position.back.slice(0, -1) };
}

/** Reads `cursor` and `back` from a URL query. */
export function positionOf(query: URLSearchParams): CursorPosition {
  return { cursor: query.get("cursor") ?? "", back: (query.get("back") ?? "").split(",").filter(Boolean) };
}

/** Writes `position` into a URL query (nothing for the first page). */
export function writePosition(query: URLSearchParams, position: CursorPosition) {
  if (!position.cursor) return;
  query.set("cursor", position.cursor);
  if (position.back.length > 0) query.set("back", position.back.join(","));
}
