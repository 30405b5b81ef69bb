import { Column, getTableName, is, Param, Placeholder, SQL, sql, type Table } from "drizzle-orm";
import type pg from "pg";

/*
 * A hot read's prepared statement, run with its rows decoded by code worked out once. drizzle's own
 * execute finds each field's decoder anew for every field of every row (`is()` checks along the
 * prototype chain) and opens tracing spans around each step: profiled under traffic, that was a
 * quarter of the API's CPU for a page of listings. This keeps drizzle's statement (its SQL, name,
 * parameters and the type parsers it gives pg) and does the same decoding, compiled per statement.
 */

/** The parts of drizzle's node-postgres prepared query this reads (drizzle-orm 0.45, not typed publicly). */
interface DrizzlePrepared {
  client: pg.Pool;
  params: unknown[];
  queryConfig: pg.QueryArrayConfig;
  fields: Array<{ path: string[]; field: unknown }>;
  joinsNotNullableMap?: Record<string, boolean>;
}

type Decode = (value: unknown) => unknown;
/** An SQL expression's decoder (drizzle keeps it on the SQL object, internally). */
type Decoding = { decoder: { mapFromDriverValue: Decode } };

/** A field's decoder, as drizzle's mapResultRow picks it: a column, an SQL expression, an alias or a subquery. */
function decoderOf(field: unknown): Decode {
  const source = is(field, Column)
    ? field
    : is(field, SQL)
      ? (field as unknown as Decoding).decoder
      : (((field as { sql?: SQL }).sql ?? (field as { _: { sql: SQL } })._.sql) as unknown as Decoding).decoder;
  // Read once: an aliased column is a Proxy, whose every property read runs its handler.
  const map = source.mapFromDriverValue;
  // Text, numbers and booleans come from pg as they are answered: no call per value.
  if (map === Column.prototype.mapFromDriverValue) return (value) => value;
  const decode = map.bind(source);
  return (value) => (value === null ? null : decode(value));
}

/** A parameter's value from the named values of one execution. */
function paramOf(param: unknown): (values: Record<string, unknown>) => unknown {
  if (is(param, Placeholder)) return (values) => values[param.name];
  if (is(param, Param) && is(param.value, Placeholder)) {
    const { name } = param.value;
    const { encoder } = param;
    return (values) => encoder.mapToDriverValue(values[name]);
  }
  return () => param;
}

/** The table (or view) name of a selected column, or undefined for SQL expressions. */
function tableOf(field: unknown): string | undefined {
  return is(field, Column) ? getTableName(field.table as Table) : undefined;
}

/**
 * Runs `prepared` (from drizzle's `.prepare(name)` on a select) with its named values; answers
 * the rows drizzle's `execute` would: a left-joined table's object is null when its first column
 * is (no row matched), as drizzle decides it.
 */
export function compiled<T>(prepared: { execute(values?: Record<string, unknown>): Promise<T[]> }) {
  const statement = prepared as unknown as DrizzlePrepared;
  const params = statement.params.map(paramOf);
  const fields = statement.fields.map(({ path, field }) => ({ path, decode: decoderOf(field), table: tableOf(field) }));
  // Objects of a left-joined table (two-level paths of its columns only): the index of their first column.
  const nullable = new Map<string, number>();
  if (statement.joinsNotNullableMap) {
    const tables = new Map<string, Set<string | undefined>>();
    fields.forEach(({ path, table }) => {
      if (path.length !== 2) return;
      const object = path[0] as string;
      tables.set(object, (tables.get(object) ?? new Set()).add(table));
    });
    for (const [object, names] of tables) {
      const [table] = [...names];
      if (names.size === 1 && table !== undefined && !statement.joinsNotNullableMap[table]) {
        nullable.set(
          object,
          fields.findIndex(({ path }) => path.length === 2 && path[0] === object),
        );
      }
    }
  }

  function decodeRow(row: unknown[]): T {
    const result: Record<string, unknown> = {};
    for (let index = 0; index < fields.length; index++) {
      const { path, decode } = fields[index] as (typeof fields)[number];
      let node = result;
      for (let depth = 0; depth < path.length - 1; depth++) {
        const key = path[depth] as string;
        node[key] ??= {};
        node = node[key] as Record<string, unknown>;
      }
      node[path[path.length - 1] as string] = decode(row[index]);
    }
    for (const [object, first] of nullable) {
      if (row[first] === null) result[object] = null;
    }
    return result as T;
  }

  return {
    async execute(values: Record<string, unknown> = {}): Promise<T[]> {
      const result = await statement.client.query(
        statement.queryConfig,
        params.map((param) => param(values)),
      );
      return result.rows.map(decodeRow);
    },
  };
}

/**
 * A LIMIT written into a prepared statement's SQL. drizzle's limit() sends a number as a
 * parameter, and with an unknown LIMIT Postgres plans for a tenth of all rows: the kept (generic)
 * plan looks worse than one planned for the values, so every execution is planned again.
 */
export function literalLimit(rows: number): number {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`literalLimit: ${rows} is not a row count`);
  return sql.raw(String(rows)) as unknown as number;
}
