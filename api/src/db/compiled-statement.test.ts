import { randomUUID } from "node:crypto";
import { asc, desc, eq, sql } from "drizzle-orm";
import { boolean, integer, jsonb, numeric, pgSchema, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "./client.ts";
import { compiled } from "./compiled-statement.ts";

/*
 * compiled() must answer exactly the rows drizzle's own execute answers: the same values decoded
 * the same way (timestamps as Dates, numerics as strings, jsonb, booleans, SQL expressions),
 * nested objects, and a left-joined table's object null when no row matched. Both run the same
 * statement on the suite's Postgres, over tables of this test's own schema.
 */
const url = inject("stack").databaseUrl;
const db = createDatabase(url, { max: 2 });
const schemaName = `compiled_${randomUUID().slice(0, 8)}`;
const schema = pgSchema(schemaName);
const sellers = schema.table("sellers", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  joinedAt: timestamp("joined_at", { withTimezone: true }).notNull(),
});
const records = schema.table("records", {
  sellerId: uuid("seller_id").primaryKey(),
  completed: integer("completed").notNull(),
  volume: numeric("volume", { precision: 78, scale: 0 }).notNull(),
});
const items = schema.table("items", {
  id: uuid("id").primaryKey(),
  sellerId: uuid("seller_id").notNull(),
  title: text("title").notNull(),
  priceWei: numeric("price_wei", { precision: 78, scale: 0 }).notNull(),
  isActive: boolean("is_active").notNull(),
  metadata: jsonb("metadata"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
});

const withRecord = randomUUID();
const withoutRecord = randomUUID();

beforeAll(async () => {
  await db.execute(sql.raw(`CREATE SCHEMA ${schemaName}`));
  await db.execute(
    sql.raw(
      `CREATE TABLE ${schemaName}.sellers (id uuid PRIMARY KEY, name text NOT NULL, joined_at timestamptz NOT NULL)`,
    ),
  );
  await db.execute(
    sql.raw(
      `CREATE TABLE ${schemaName}.records (seller_id uuid PRIMARY KEY, completed integer NOT NULL, volume numeric(78,0) NOT NULL)`,
    ),
  );
  await db.execute(
    sql.raw(
      `CREATE TABLE ${schemaName}.items (id uuid PRIMARY KEY, seller_id uuid NOT NULL, title text NOT NULL, price_wei numeric(78,0) NOT NULL, is_active boolean NOT NULL, metadata jsonb, created_at timestamptz NOT NULL)`,
    ),
  );
  await db.insert(sellers).values([
    { id: withRecord, name: "kept", joinedAt: new Date("2026-01-02T03:04:05.678Z") },
    { id: withoutRecord, name: "new", joinedAt: new Date("2026-02-03T04:05:06.789Z") },
  ]);
  await db.insert(records).values({ sellerId: withRecord, completed: 7, volume: "123456789012345678901234567890" });
  await db.insert(items).values(
    Array.from({ length: 6 }, (_, i) => ({
      id: randomUUID(),
      sellerId: i % 2 === 0 ? withRecord : withoutRecord,
      title: `item ${i}`,
      priceWei: String(10n ** 30n + BigInt(i)),
      isActive: i !== 3,
      metadata: i % 3 === 0 ? null : { rank: i, tags: ["a", "b"] },
      createdAt: new Date(Date.UTC(2026, 5, 1, 12, 0, i)),
    })),
  );
});

afterAll(async () => {
  await db.execute(sql.raw(`DROP SCHEMA ${schemaName} CASCADE`));
  await db.$client.end();
});

describe("compiled", () => {
  it("answers what drizzle's execute answers for a page of a subquery joined to a left-joined record", async () => {
    const page = db
      .select({
        id: items.id,
        sellerId: items.sellerId,
        title: items.title,
        priceWei: items.priceWei,
        createdAt: items.createdAt,
      })
      .from(items)
      .where(eq(items.isActive, sql.placeholder("active")))
      .orderBy(desc(items.createdAt))
      .limit(sql.placeholder("limit"))
      .as("page");
    const query = () =>
      db
        .select({
          item: page._.selectedFields,
          createdAtText: sql<string>`to_char(${page.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
          seller: { name: sellers.name, joinedAt: sellers.joinedAt },
          record: records,
        })
        .from(page)
        .innerJoin(sellers, eq(sellers.id, page.sellerId))
        .leftJoin(records, eq(records.sellerId, sellers.id))
        .orderBy(desc(page.createdAt));
    const values = { active: true, limit: 4 };
    const expected = await query().prepare(`${schemaName}_drizzle`).execute(values);
    const answered = await compiled(query().prepare(`${schemaName}_compiled`)).execute(values);

    expect(answered).toEqual(expected);
    expect(answered).toHaveLength(4);
    // Both kinds of seller are on the page: one with its record, one whose record is null.
    expect(answered.map((row) => row.record === null).sort()).toEqual([false, false, true, true]);
    expect(answered[0]?.item.createdAt).toBeInstanceOf(Date);
    expect(answered.find((row) => row.record)?.record?.volume).toBe("123456789012345678901234567890");
  });

  it("decodes whole-table selects (jsonb, booleans, nulls) and runs again with other values", async () => {
    const query = () =>
      db
        .select()
        .from(items)
        .where(eq(items.sellerId, sql.placeholder("seller")))
        .orderBy(asc(items.title));
    const statement = compiled(query().prepare(`${schemaName}_items_c`));
    const reference = query().prepare(`${schemaName}_items_d`);
    for (const seller of [withRecord, withoutRecord, randomUUID()]) {
      const answered = await statement.execute({ seller });
      expect(answered).toEqual(await reference.execute({ seller }));
    }
    const rows = await statement.execute({ seller: withoutRecord });
    expect(rows.map((row) => row.metadata)).toEqual([
      { rank: 1, tags: ["a", "b"] },
      null,
      { rank: 5, tags: ["a", "b"] },
    ]);
    expect(rows.map((row) => row.isActive)).toEqual([true, false, true]);
  });
});
