import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/*
 * JSON text built by Postgres by concatenation, for answers it writes whole (the browse): several
 * times cheaper per row than json_build_object, which looks up the output function of every value
 * on every row. Strings go through to_json (its escaping); numbers and booleans through their text
 * casts, which are JSON already. Every value must be non-null: a null makes the whole text null.
 */

/** A JSON value as SQL text. */
export type JsonText = SQL<string> & { readonly __jsonText: true };

const asJson = (text: SQL) => text as JsonText;

/** A string value (escaped by to_json). */
export function jsonString(value: SQLWrapper): JsonText {
  return asJson(sql`to_json((${value})::text)::text`);
}

/** An integer or boolean value (their text casts are JSON: 42, true). */
export function jsonLiteral(value: SQLWrapper): JsonText {
  return asJson(sql`(${value})::text`);
}

/** A value that may be null, as JSON null then (a null would otherwise make the whole text null). */
export function jsonOrNull(value: JsonText): JsonText {
  return asJson(sql`coalesce(${value}, 'null')`);
}

/** A constant value, written into the statement. */
export function jsonConstant(value: string | number | boolean): JsonText {
  return asJson(sql.raw(`'${JSON.stringify(value).replaceAll("'", "''")}'`));
}

const KEY = /^[A-Za-z_]+$/;

/**
 * An object of these fields, in this order, without its closing brace: a stored part that more
 * fields are appended to (`,"key":value`) before the `}` (a browse card and its seller).
 */
export function openJsonObject(fields: Record<string, JsonText>): JsonText {
  if (Object.keys(fields).length === 0) return asJson(sql`'{'`);
  const parts = Object.entries(fields).map(([key, value], i) => {
    if (!KEY.test(key)) throw new Error(`openJsonObject: unsupported key ${key}`);
    return sql`${sql.raw(`'${i === 0 ? "{" : ","}"${key}":'`)} || ${value}`;
  });
  return asJson(sql`(${sql.join(parts, sql` || `)})`);
}

/** An object of these fields, in this order. */
export function jsonObject(fields: Record<string, JsonText>): JsonText {
  return asJson(sql`(${openJsonObject(fields)} || '}')`);
}

/** A timestamp as JavaScript's toISOString writes it (UTC, milliseconds cut, not rounded). */
export function isoMillisSql(at: SQLWrapper): SQL<string> {
  return sql<string>`to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
