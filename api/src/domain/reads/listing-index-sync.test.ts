import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedMarket } from "../../../bench/seed.ts";
import { randomSource } from "../../../bench/traffic.ts";
import { databaseOfItsOwn, type TestApp, testApp } from "../../../test/harness.ts";
import { createDatabase, type Database } from "../../db/client.ts";
import { agents, browseChanges, listings } from "../../db/schema.ts";
import { migrateDatabase } from "../../migrate.ts";
import { LISTING_CATEGORIES, LISTING_SORTS, type ListingSortName } from "../shared/listing-terms.ts";
import { type BrowseListingsQuery, listingBrowse, sellerSuffixSql } from "./listing-browse.ts";
import { listingIndexSync, prefixesOfTsQuery, pruneBrowseChanges } from "./listing-index-sync.ts";

/*
 * The listing index on real Postgres, on a database of its own (the suite's has other files'
 * listings coming and going between two reads): every page it answers is the page the SQL
 * statement answers, byte for byte and cursor for cursor, for varied queries over a seeded market
 * with edge cases; and after every kind of write made by another connection (another process), a
 * write not yet committed, changes pruned past the index, and writes racing pages.
 */

let t: TestApp;
let db: Database;
let other: Database;
let genericPlansDb: Database;
let drop: () => Promise<void>;
let agentIds: string[];
const VOCABULARY = [
  "kalo",
  "kalomi",
  "ka",
  "sute",
  "gpt4",
  "web3",
  "über",
  "naïve",
  "café",
  "state-of-the-art",
  "it's",
  "1e5",
  "v2.0",
  "123abc",
];

beforeAll(async () => {
  t = await testApp();
  const own = await databaseOfItsOwn(t, "listing_index");
  db = createDatabase(own.url, { max: 4 });
  other = createDatabase(own.url, { max: 4 });
  genericPlansDb = createDatabase(own.url, { max: 2, genericPlans: true });
  drop = async () => {
    await Promise.all([db.$client.end(), other.$client.end(), genericPlansDb.$client.end()]);
    await own.drop();
  };
  await migrateDatabase(db);
  ({ agentIds } = await seedMarket(db, { agents: 200, listings: 3_000, keys: 0 }));
  // Edge cases: words Postgres' parser splits or keeps whole, accents, one creation time and one
  // price shared by many listings, zero purchases.
  const at = "2026-11-20T12:00:00.123456Z";
  for (let k = 0; k < 60; k++) {
    const words = [VOCABULARY[k % VOCABULARY.length], VOCABULARY[(k * 7 + 3) % VOCABULARY.length]].join(" ");
    await db.insert(listings).values({
      agentId: agentIds[k % 5] as string,
      title: `Edge ${words}`,
      description: `${words} ÜBER-fast, 100% done`,
      category: LISTING_CATEGORIES[k % 3] as string,
      listingType: k % 4 === 0 ? "BOUNTY" : "FIXED",
      priceWei: "1000000",
      createdAt: new Date(at),
    });
  }
  // All of them at the very same microsecond.
  await db.execute(sql`UPDATE app.listings SET created_at = ${at}::timestamptz WHERE title LIKE 'Edge%'`);
});
afterAll(async () => {
  await drop?.();
  await t.close();
});

type Browse = (query: BrowseListingsQuery) => Promise<{ cards: string; next_cursor: string | null }>;

/** A browse whose cards are text, whether they came as text (SQL) or as bytes (the index). */
function asText(browse: ReturnType<typeof listingBrowse>): Browse {
  return async (query) => {
    const page = await browse(query);
    return { cards: page.cards.toString(), next_cursor: page.next_cursor };
  };
}
const bySql = () => asText(listingBrowse({ db, genericPlansDb }));
const byIndex = () => asText(listingBrowse({ db, genericPlansDb, index: listingIndexSync(db, sellerSuffixSql) }));

function randomQuery(random: () => number): BrowseListingsQuery {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const sorts: readonly ListingSortName[] = LISTING_SORTS;
  const query: BrowseListingsQuery = { sort: pick(sorts), limit: 1 + Math.floor(random() * 60) };
  if (random() < 0.6) {
    const word = pick([
      ...VOCABULARY,
      "ka",
      "k",
      "sutera",
      "ü",
      "ÜBER",
      "über-fast",
      "100",
      "zzzz",
      "ka lo",
      "kalo sute",
    ]);
    query.keyword = random() < 0.2 ? word.slice(0, 2) : word;
  }
  if (random() < 0.5) query.category = pick(LISTING_CATEGORIES);
  if (random() < 0.25) query.categories = [pick(LISTING_CATEGORIES), pick(LISTING_CATEGORIES)];
  // A skill: a category's name, or a word searched as a keyword.
  if (random() < 0.15) query.skill = random() < 0.5 ? pick(LISTING_CATEGORIES) : pick(VOCABULARY);
  if (random() < 0.3) query.listing_type = random() < 0.8 ? "FIXED" : "BOUNTY";
  if (random() < 0.25) query.min_price = String(Math.floor(random() * 20) * 1_000_000);
  if (random() < 0.2) query.max_price = String(20_000_000 + Math.floor(random() * 30) * 1_000_000);
  if (random() < 0.1) query.starter = true;
  if (random() < 0.1) query.exclude_agent = pick(agentIds.slice(0, 5));
  return query;
}

/** The same pages, by SQL and by the index, following next_cursor up to `pages` pages. */
async function expectSamePages(sqlBrowse: Browse, indexBrowse: Browse, query: BrowseListingsQuery, pages = 3) {
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const paged = { ...query, cursor };
    const expected = await sqlBrowse(paged);
    expect(await indexBrowse(paged), JSON.stringify(paged)).toEqual(expected);
    if (!expected.next_cursor) return;
    cursor = expected.next_cursor;
  }
}

describe("the listing index on Postgres", () => {
  it("parses Postgres' prefix tsqueries and nothing else", () => {
    expect(prefixesOfTsQuery("'kalo':* & 'it''s':*")).toEqual(["kalo", "it's"]);
    expect(prefixesOfTsQuery("'state-of-the-art':* <-> 'state':*")).toBeUndefined();
    expect(prefixesOfTsQuery("'kalo' & 'mi':*")).toBeUndefined();
    expect(prefixesOfTsQuery("")).toBeUndefined();
  });

  it("answers varied pages as the SQL statement does, byte for byte, cursors included", async () => {
    const sqlBrowse = bySql();
    const indexBrowse = byIndex();
    const random = randomSource(7);
    for (let k = 0; k < 250; k++) await expectSamePages(sqlBrowse, indexBrowse, randomQuery(random));
  });

  it("sorts expensive as cheapest reversed (highest the same), by SQL and by the index, page by page", async () => {
    const sqlBrowse = bySql();
    const indexBrowse = byIndex();
    // Each card's own id (not its seller's, `"agent":{"id":...}`).
    const idsOf = (cards: string) => [...cards.matchAll(/(?<!:)\{"id":"([0-9a-f-]{36})"/g)].map((match) => match[1]);
    const everyPage = async (browse: Browse, query: BrowseListingsQuery) => {
      const ids: (string | undefined)[] = [];
      let cursor: string | undefined;
      do {
        const page = await browse({ ...query, cursor });
        ids.push(...idsOf(page.cards));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return ids;
    };
    for (const category of ["coding", "writing"] as const) {
      const cheapest = await everyPage(sqlBrowse, { sort: "cheapest", category, limit: 100 });
      expect(cheapest.length).toBeGreaterThan(100);
      for (const browse of [sqlBrowse, indexBrowse]) {
        expect(await everyPage(browse, { sort: "expensive", category, limit: 37 })).toEqual([...cheapest].reverse());
        expect(await everyPage(browse, { sort: "highest", category, limit: 100 })).toEqual([...cheapest].reverse());
      }
      await expectSamePages(sqlBrowse, indexBrowse, { sort: "highest", category, limit: 7, min_price: "2000000" }, 5);
    }
  });

  it("shows every write another connection commits, at the next page, and none before its commit", async () => {
    const sqlBrowse = bySql();
    const indexBrowse = byIndex();
    const random = randomSource(11);
    const check = async (keyword?: string) => {
      for (const sort of ["newest", "cheapest", "popular"] as const) {
        await expectSamePages(sqlBrowse, indexBrowse, { sort, limit: 20, keyword }, 2);
      }
      for (let k = 0; k < 10; k++) await expectSamePages(sqlBrowse, indexBrowse, randomQuery(random), 2);
    };
    await check();
    const seller = agentIds[7] as string;
    const word = `fresh${Date.now()}`;
    const [created] = await other
      .insert(listings)
      .values({
        agentId: seller,
        title: `New ${word}`,
        description: "kalo",
        category: "coding",
        listingType: "FIXED",
        priceWei: "1",
      })
      .returning({ id: listings.id });
    const id = created?.id as string;
    const found = async () => (await indexBrowse({ sort: "newest", limit: 5, keyword: word })).cards;
    expect(await found()).toContain(id);
    await check(word);

    const writes = [
      () => other.update(listings).set({ priceWei: "2" }).where(eq(listings.id, id)),
      () => other.update(listings).set({ timesPurchased: 1_000 }).where(eq(listings.id, id)),
      () => other.update(listings).set({ title: "Renamed sute" }).where(eq(listings.id, id)),
      () => other.update(agents).set({ name: "Renamed seller" }).where(eq(agents.id, seller)),
      () => other.update(agents).set({ reputationTier: "TRUSTED" }).where(eq(agents.id, seller)),
      () => other.update(agents).set({ isPaused: true }).where(eq(agents.id, seller)),
      () => other.update(agents).set({ isPaused: false }).where(eq(agents.id, seller)),
      () => other.update(listings).set({ isActive: false }).where(eq(listings.id, id)),
      () => other.update(listings).set({ isActive: true, category: "writing" }).where(eq(listings.id, id)),
      () => other.delete(listings).where(eq(listings.id, id)),
    ];
    for (const write of writes) {
      await write();
      await check("sute");
      await check();
    }
    expect(await found()).toBe("");

    // A write not committed yet is not shown; once committed, it is.
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let inserted!: () => void;
    const written = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = other.transaction(async (tx) => {
      await tx.insert(listings).values({
        agentId: seller,
        title: `Pending ${word}`,
        description: "",
        category: "data",
        listingType: "FIXED",
        priceWei: "5",
      });
      inserted();
      await committed;
    });
    await written;
    expect(await found()).toBe("");
    commit();
    await transaction;
    expect(await found()).toContain("Pending");
  });

  it("loads everything again when the changes it missed were pruned, and is right after writes racing pages", async () => {
    const sqlBrowse = bySql();
    const sync = listingIndexSync(db, sellerSuffixSql);
    const indexBrowse = asText(listingBrowse({ db, genericPlansDb, index: sync }));
    await expectSamePages(sqlBrowse, indexBrowse, { sort: "newest", limit: 10 });
    expect(sync.loads).toBe(1);
    const some = await db.select({ id: listings.id }).from(listings).limit(30);
    const ids = some.map((row) => row.id);
    await other
      .update(listings)
      .set({ priceWei: "3" })
      .where(inArray(listings.id, ids.slice(0, 3)));
    await other
      .update(listings)
      .set({ timesPurchased: 500 })
      .where(inArray(listings.id, ids.slice(3, 6)));
    await pruneBrowseChanges(other, 2);
    const [left] = await db.select({ n: sql<number>`count(*)::int` }).from(browseChanges);
    expect(left?.n).toBe(2);
    await expectSamePages(sqlBrowse, indexBrowse, { sort: "cheapest", limit: 10 });
    await expectSamePages(sqlBrowse, indexBrowse, { sort: "popular", limit: 10 });
    expect(sync.loads).toBe(2);

    // Writes and pages at once; then every page agrees.
    const random = randomSource(5);
    await Promise.all([
      ...ids.map((id, k) =>
        other
          .update(listings)
          .set({ timesPurchased: 700 + k, priceWei: String(4 + k) })
          .where(eq(listings.id, id)),
      ),
      ...Array.from({ length: 20 }, () => indexBrowse(randomQuery(random))),
    ]);
    for (const sort of ["newest", "cheapest", "popular"] as const) {
      await expectSamePages(sqlBrowse, indexBrowse, { sort, limit: 40 });
    }
    for (let k = 0; k < 20; k++) await expectSamePages(sqlBrowse, indexBrowse, randomQuery(random));
    expect(sync.loads).toBe(2);
  });
});
