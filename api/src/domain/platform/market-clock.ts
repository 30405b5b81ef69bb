import { INDEXED_BLOCKS_SQL } from "@agent-marketplace/indexer";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";

/*
 * "Now" for figures counted by day or period from block timestamps: the later of the wall clock and
 * the last indexed block's time. They agree on a live chain; a local chain moved forward (a test,
 * a developer skipping a dispute window) runs ahead of the wall, and its settlements must still
 * fall on "today", not in a future the figures never reach.
 */

const DAY_SECONDS = 86_400;

/** The marketplace's clock, unix seconds. */
export async function marketNow(db: Database, chainId: number): Promise<number> {
  const wall = Math.floor(Date.now() / 1000);
  const { rows } = await db
    .execute<{ block_timestamp: string }>(sql.raw(`${INDEXED_BLOCKS_SQL} WHERE chain_id = ${Number(chainId)}`))
    .catch(() => ({ rows: [] as { block_timestamp: string }[] }));
  const indexed = Number(rows[0]?.block_timestamp ?? 0);
  return Math.max(wall, indexed);
}

/** The UTC day (YYYY-MM-DD) of a unix time. */
export function utcDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The unix time of a UTC day's first second, `back` days before the day of `seconds`. */
export function utcDayStart(seconds: number, back = 0): number {
  return (Math.floor(seconds / DAY_SECONDS) - back) * DAY_SECONDS;
}

export { DAY_SECONDS };
