import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomSource } from "../../../bench/traffic.ts";
import { createListing, get, json, registerAgent, type TestApp, testApp, uniqueWord } from "../../../test/harness.ts";

/*
 * A keyword of one plain word is answered from app.listing_words (kept by triggers on listings,
 * migration 0021), every other keyword from the listings' tsvector. Whatever the path, a browse
 * must list exactly what a plain query over app.listings gives: the listings shown whose words
 * start with the keyword, filtered, in the sort's order, page after page. The words here are
 * prefixes of one another and listings change after they are written (renamed, bought, delisted,
 * their seller paused, deleted), so the word rows must follow them.
 */
let t: TestApp;
beforeAll(async () => {
  t = await testApp({ registrationsPerHour: 1_000 });
});
afterAll(() => t.close());

const SORT_SQL = {
  newest: sql`created_at DESC, id DESC`,
  cheapest: sql`price_wei ASC, id ASC`,
  popular: sql`times_purchased DESC, id DESC`,
} as const;

/** The plain answer: every listing shown that matches, in order (the tsvector, no index tricks). */
async function expectedIds(keyword: string, sort: keyof typeof SORT_SQL, filters: Record<string, string>) {
  const conditions = [sql`is_active AND seller_listed`, sql`search @@ to_tsquery('simple', ${`${keyword}:*`})`];
  if (filters.category) conditions.push(sql`category = ${filters.category}`);
  if (filters.listing_type) conditions.push(sql`listing_type = ${filters.listing_type}`);
  if (filters.min_price) conditions.push(sql`price_wei >= ${filters.min_price}::numeric`);
  if (filters.max_price) conditions.push(sql`price_wei <= ${filters.max_price}::numeric`);
  if (filters.exclude_agent) conditions.push(sql`agent_id <> ${filters.exclude_agent}::uuid`);
  const { rows } = await t.db.execute<{ id: string }>(
    sql`SELECT id FROM app.listings WHERE ${sql.join(conditions, sql` AND `)} ORDER BY ${SORT_SQL[sort]}`,
  );
  return rows.map((row) => row.id);
}

/** Every page of a browse, followed by its cursors. */
async function browsedIds(query: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, limit: "4", ...(cursor ? { cursor } : {}) });
    const response = await get(t.app, `/api/listings?${params}`);
    expect(response.status).toBe(200);
    const page = await json(response);
    ids.push(...page.listings.map((listing: { id: string }) => listing.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

describe("keyword pages from the word rows", () => {
  it("list what the listings' words give, for prefixes of one another, after every kind of change", async () => {
    const random = randomSource(7);
    const stem = uniqueWord("zw");
    const words = ["", "a", "ab", "abc", "abd", "b", "b1", "9"].map((end) => `${stem}${end}`);
    const sellers = await Promise.all([registerAgent(t.app, "one"), registerAgent(t.app, "two"), registerAgent(t.app)]);
    const categories = ["coding", "data", "writing"];
    const created: Array<{ id: string }> = [];
    for (let i = 0; i < 36; i++) {
      const pick = () => words[Math.floor(random() * words.length)];
      created.push(
        await createListing(t.app, sellers[i % 3] as { id: string; key: string }, {
          title: `${pick()} ${pick()}-${pick()}`,
          description: `Work ${pick()} ${i}`,
          category: categories[Math.floor(random() * 3)],
          // A few share a price, so ties are broken by id.
          price_wei: String(1_000_000 + Math.floor(random() * 8) * 250_000),
        }),
      );
    }
    const ids = created.map((listing) => listing.id);
    const idArray = `{${ids.join(",")}}`;
    const at = (i: number) => ids[i] as string;
    // Changes after the listings were written, each of which browse must see.
    for (let i = 0; i < 36; i += 2) {
      await t.db.execute(
        sql`UPDATE app.listings SET times_purchased = ${Math.floor(random() * 4)} WHERE id = ${at(i)}`,
      );
    }
    await t.db.execute(sql`UPDATE app.listings SET title = ${`Renamed ${stem}zz`} WHERE id = ${at(1)}`);
    await t.db.execute(sql`UPDATE app.listings SET price_wei = 3000000, category = 'data' WHERE id = ${at(3)}`);
    await t.db.execute(sql`UPDATE app.listings SET is_active = false WHERE id IN (${at(4)}, ${at(5)})`);
    await t.db.execute(sql`UPDATE app.listings SET is_active = true WHERE id = ${at(5)}`);
    await t.db.execute(sql`UPDATE app.listings SET created_at = now() - interval '1 day' WHERE id = ${at(6)}`);
    await t.db.execute(sql`DELETE FROM app.listings WHERE id = ${at(7)}`);
    const paused = sellers[2] as { id: string };
    await t.db.execute(sql`UPDATE app.agents SET is_paused = true WHERE id = ${paused.id}`);

    // The word rows are exactly the shown listings' words.
    const { rows: stale } = await t.db.execute(sql`
      (SELECT word, listing_id FROM app.listing_words WHERE listing_id = ANY(${idArray}::uuid[]))
      EXCEPT ALL
      (SELECT w, l.id FROM app.listings l, unnest(tsvector_to_array(l.search)) AS w
       WHERE l.id = ANY(${idArray}::uuid[]) AND l.is_active AND l.seller_listed)`);
    const { rows: missing } = await t.db.execute(sql`
      (SELECT w, l.id FROM app.listings l, unnest(tsvector_to_array(l.search)) AS w
       WHERE l.id = ANY(${idArray}::uuid[]) AND l.is_active AND l.seller_listed)
      EXCEPT ALL
      (SELECT word, listing_id FROM app.listing_words WHERE listing_id = ANY(${idArray}::uuid[]))`);
    expect({ stale, missing }).toEqual({ stale: [], missing: [] });

    const filterSets: Array<Record<string, string>> = [
      {},
      { category: "data" },
      { listing_type: "FIXED", min_price: "1500000" },
      { max_price: "1750000" },
      { exclude_agent: sellers[0]?.id as string, category: "coding" },
      { exclude_agent: randomUUID() },
    ];
    const keywords = [stem, ...words.slice(1), `${stem}A`, `${stem}ab1`, `${stem}zz`, `${stem}c`];
    let nonEmpty = 0;
    for (const keyword of keywords) {
      for (const sort of ["newest", "cheapest", "popular"] as const) {
        for (const filters of filterSets) {
          const expected = await expectedIds(keyword.toLowerCase(), sort, filters);
          if (expected.length > 4) nonEmpty += 1;
          expect({ keyword, sort, filters, ids: await browsedIds({ keyword, sort, ...filters }) }).toEqual({
            keyword,
            sort,
            filters,
            ids: expected,
          });
        }
      }
    }
    // The comparison had pages to follow, not only empty answers.
    expect(nonEmpty).toBeGreaterThan(40);
    // Resuming the seller shows its listings again, by their words.
    await t.db.execute(sql`UPDATE app.agents SET is_paused = false WHERE id = ${paused.id}`);
    expect(await browsedIds({ keyword: stem, sort: "newest" })).toEqual(await expectedIds(stem, "newest", {}));
  });
});
