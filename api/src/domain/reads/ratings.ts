import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/** Average of ratings as a decimal with two places, rounded half up ("0.00" without ratings). */
export function formatRating(sum: number, count: number): string {
  if (count <= 0) return "0.00";
  const hundredths = (BigInt(sum) * 200n + BigInt(count)) / (2n * BigInt(count));
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, "0")}`;
}

/** formatRating in SQL, over integer expressions (browse builds its answer in Postgres). Keep the two in step. */
export function formatRatingSql(sum: SQLWrapper, count: SQLWrapper): SQL<string> {
  const hundredths = sql`((${sum})::bigint * 200 + (${count})) / (2 * (${count})::bigint)`;
  return sql<string>`(CASE WHEN ${count} <= 0 THEN '0.00'
    ELSE (${hundredths} / 100)::text || '.' || lpad((${hundredths} % 100)::text, 2, '0') END)`;
}
