import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createListing,
  del,
  get,
  json,
  newWallet,
  patch,
  post,
  registerAgent,
  sessionOf,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";
import { agents, listings } from "../../db/schema.ts";

let t: TestApp;
beforeAll(async () => {
  t = await testApp({ registrationsPerHour: 1_000 });
});
afterAll(() => t.close());

/** GET /api/listings with these query parameters; asserts 200. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
async function browse(params: Record<string, string>): Promise<any> {
  const response = await get(t.app, `/api/listings?${new URLSearchParams(params)}`);
  expect(response.status).toBe(200);
  return json(response);
}

async function browseIds(params: Record<string, string>): Promise<string[]> {
  return (await browse(params)).listings.map((listing: { id: string }) => listing.id);
}

/** Every page of a browse, following next_cursor; the ids in order. */
async function allPages(params: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const body = await browse({ ...params, ...(cursor && { cursor }) });
    ids.push(...body.listings.map((listing: { id: string }) => listing.id));
    cursor = body.next_cursor;
    pages += 1;
    if (pages > 50) throw new Error("too many pages");
  } while (cursor);
  return { ids, pages };
}

async function setColumns(id: string, values: Partial<typeof listings.$inferInsert>) {
  await t.db.update(listings).set(values).where(eq(listings.id, id));
}

describe("POST /api/listings", () => {
  it("creates a FIXED listing with the defaults and answers the details shape", async () => {
    const seller = await registerAgent(t.app, "Seller");
    const response = await createListing(t.app, seller, {
      title: "  Summarise papers  ",
      description: "I summarise ten papers a day",
      price_wei: "1500000",
    });
    expect(response).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: "Summarise papers",
      description: "I summarise ten papers a day",
      category: "other",
      listing_type: "FIXED",
      price_wei: "1500000",
      price_usdc: "1.50",
      currency: "USDC",
      is_active: true,
      state: "active",
      is_negotiable: true,
      accepts_proposals: false,
      times_purchased: 0,
      avg_rating: "0.00",
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      rating_count: 0,
      delivery_hours: 72,
      agents: { id: seller.id, name: "Seller", wallet_address: seller.wallet.address, transaction_count: 0 },
      // No rated deal: no rate (rated_deals 0 beside it).
      seller_reputation: { completed: 0, refunded: 0, disputed: 0, success_rate: 0, rated_deals: 0 },
      // A FIXED listing is also sold over x402 (routes/listings/x402.ts).
      x402: {
        endpoint: `/api/listings/${response.id}/x402`,
        methods: ["GET", "POST"],
        x402_version: 2,
        scheme: "exact",
        network: `eip155:${t.config.chainId}`,
        asset: t.services.escrow.usdc,
        pay_to: t.services.escrow.escrow,
      },
    });
    const [row] = await t.db.select().from(listings).where(eq(listings.id, response.id));
    expect(row).toMatchObject({ agentId: seller.id, priceWei: "1500000", isActive: true });
  });

  it("takes every optional field, with a price_usdc that agrees with price_wei", async () => {
    const seller = await registerAgent(t.app);
    const listing = await createListing(t.app, seller, {
      category: "coding",
      listing_type: "FIXED",
      price_wei: "2999999",
      price_usdc: "2.99",
      is_negotiable: false,
    });
    expect(listing).toMatchObject({
      category: "coding",
      listing_type: "FIXED",
      price_wei: "2999999",
      price_usdc: "2.99",
      is_negotiable: false,
    });
  });

  it("takes the caller's agent_id in capitals too", async () => {
    const seller = await registerAgent(t.app);
    const listing = await createListing(t.app, seller, { agent_id: seller.id.toUpperCase() });
    expect(listing.agents.id).toBe(seller.id);
  });

  it("accepts the longest title and description", async () => {
    const seller = await registerAgent(t.app);
    const listing = await createListing(t.app, seller, { title: "t".repeat(200), description: "d".repeat(10_000) });
    expect(listing.title).toHaveLength(200);
    expect(listing.description).toHaveLength(10_000);
  });

  it("lets a paused agent create listings, which browse shows once it is unpaused", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    expect((await patch(t.app, "/api/agents/me", { is_paused: true }, seller.key)).status).toBe(200);
    const listing = await createListing(t.app, seller, { title: `Paused ${word}` });
    expect(await browseIds({ keyword: word })).toEqual([]);
    expect((await get(t.app, `/api/listings/${listing.id}`)).status).toBe(200);
    expect((await patch(t.app, "/api/agents/me", { is_paused: false }, seller.key)).status).toBe(200);
    expect(await browseIds({ keyword: word })).toEqual([listing.id]);
  });
});

describe("GET /api/listings/{id}", () => {
  it("answers avg_rating with two decimals from the stored ratings", async () => {
    const seller = await registerAgent(t.app);
    const listing = await createListing(t.app, seller);
    for (const [sum, count, expected] of [
      [9, 2, "4.50"],
      [10, 3, "3.33"],
      [2, 3, "0.67"],
      [5, 1, "5.00"],
      [0, 0, "0.00"],
    ] as const) {
      await setColumns(listing.id, { ratingSum: sum, ratingCount: count, timesPurchased: count });
      const body = await json(await get(t.app, `/api/listings/${listing.id}`));
      expect(body.avg_rating).toBe(expected);
      expect(body.times_purchased).toBe(count);
    }
  });

  it("still answers an inactive listing, with is_active false", async () => {
    const seller = await registerAgent(t.app);
    const listing = await createListing(t.app, seller);
    expect((await del(t.app, `/api/listings/${listing.id}`, seller.key)).status).toBe(200);
    const response = await get(t.app, `/api/listings/${listing.id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: listing.id, is_active: false });
  });
});

describe("GET /api/listings", () => {
  it("answers browse objects with the seller's id, name and tier", async () => {
    const seller = await registerAgent(t.app, "Browsed");
    const word = uniqueWord();
    const listing = await createListing(t.app, seller, {
      title: `Browse ${word}`,
      description: "Data cleaning",
      category: "data",
      price_wei: "2500000",
      is_negotiable: false,
    });
    await setColumns(listing.id, { timesPurchased: 3, ratingSum: 14, ratingCount: 3 });
    const body = await browse({ keyword: word });
    expect(body).toEqual({
      listings: [
        {
          id: listing.id,
          title: `Browse ${word}`,
          description: "Data cleaning",
          category: "data",
          listing_type: "FIXED",
          price_wei: "2500000",
          price_usdc: "2.50",
          currency: "USDC",
          is_negotiable: false,
          accepts_proposals: false,
          times_purchased: 3,
          avg_rating: "4.67",
          created_at: listing.created_at,
          rating_count: 3,
          delivery_hours: 72,
          is_active: true,
          agent: { id: seller.id, name: "Browsed", reputation_tier: "NEWCOMER", success_rate: 0, rated_deals: 0 },
        },
      ],
      next_cursor: null,
    });
  });

  it("shows each listing in browse as its details do, formatted right at every edge", async () => {
    const seller = await registerAgent(t.app, 'Quoted "seller" \\ ünïcode');
    const word = uniqueWord();
    // Values where formatting could go wrong: rounding of prices and ratings, huge amounts, text
    // that JSON must escape, timestamps whose microseconds must be cut (not rounded) to milliseconds.
    const cases = [
      { price: "9999", sum: 0, count: 0, at: "2026-03-01T23:59:59.999999Z" },
      { price: "1509999", sum: 1, count: 3, at: "2026-03-02T00:00:00.000001Z" },
      { price: "123456789012345678901234567890", sum: 2, count: 3, at: "2026-03-03T12:34:56.5005Z" },
      { price: "1000000", sum: 5, count: 2, at: "2026-03-04T01:02:03Z" },
      { price: "2500000", sum: 14, count: 3, at: "2026-03-05T10:00:00.123456Z" },
    ];
    for (const [i, c] of cases.entries()) {
      const listing = await createListing(t.app, seller, {
        title: `Case ${i} ${word} "quoted" \\ tab\there`,
        description: `Line one\nline two, émoji 🚀 ${i}`,
        price_wei: c.price,
        is_negotiable: i % 2 === 0,
      });
      await t.db.execute(
        sql`UPDATE app.listings SET times_purchased = ${i * 7}, rating_sum = ${c.sum}, rating_count = ${c.count},
          created_at = ${c.at}::timestamptz WHERE id = ${listing.id}`,
      );
    }
    const page = await browse({ keyword: word });
    expect(page.listings).toHaveLength(cases.length);
    for (const card of page.listings) {
      const details = await json(await get(t.app, `/api/listings/${card.id}`));
      // The seller's state of a listing is the details' alone (as its x402 endpoint): a card on the market is active.
      const { agents, seller_reputation, state, x402, ...summary } = details;
      expect(x402?.endpoint ?? null).toBe(card.listing_type === "FIXED" ? `/api/listings/${card.id}/x402` : null);
      expect(state).toBe("active");
      const { agent, ...shown } = card;
      expect(shown).toEqual(summary);
      expect(agent).toEqual({
        id: agents.id,
        name: agents.name,
        reputation_tier: "NEWCOMER",
        success_rate: seller_reputation.success_rate,
        rated_deals: seller_reputation.rated_deals,
      });
    }
    expect(page.listings.map((card: { avg_rating: string }) => card.avg_rating)).toEqual([
      "4.67",
      "2.50",
      "0.67",
      "0.33",
      "0.00",
    ]);
    expect(page.listings.map((card: { created_at: string }) => card.created_at)).toEqual([
      "2026-03-05T10:00:00.123Z",
      "2026-03-04T01:02:03.000Z",
      "2026-03-03T12:34:56.500Z",
      "2026-03-02T00:00:00.000Z",
      "2026-03-01T23:59:59.999Z",
    ]);
  });

  it("keyword: searches title and description, whole words and prefixes, all words, any case", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord("zq");
    const other = uniqueWord("zq");
    const inTitle = await createListing(t.app, seller, { title: `Translate ${word} manuals`, description: "Fast" });
    const inDescription = await createListing(t.app, seller, {
      title: "Editing",
      description: `Careful editing of ${word} texts and ${other}`,
    });
    const both = [inDescription.id, inTitle.id];
    expect(await browseIds({ keyword: word })).toEqual(both);
    expect(await browseIds({ keyword: word.toUpperCase() })).toEqual(both);
    expect(await browseIds({ keyword: word.slice(0, word.length - 3) })).toEqual(both);
    expect(await browseIds({ keyword: `${word} manuals` })).toEqual([inTitle.id]);
    expect(await browseIds({ keyword: `${word} manu` })).toEqual([inTitle.id]);
    expect(await browseIds({ keyword: `${word}, ${other.slice(0, 6)}!` })).toEqual([inDescription.id]);
    expect(await browseIds({ keyword: `${word} ${uniqueWord("zq")}` })).toEqual([]);
  });

  it("keyword: words in other scripts and with accents", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const listing = await createListing(t.app, seller, { title: `Übersetzung ${word} café naïve Ελληνικά` });
    expect(await browseIds({ keyword: `übersetz ${word}` })).toEqual([listing.id]);
    expect(await browseIds({ keyword: `CAFÉ ${word}` })).toEqual([listing.id]);
    expect(await browseIds({ keyword: `naïv ${word}` })).toEqual([listing.id]);
    expect(await browseIds({ keyword: `ελλην ${word}` })).toEqual([listing.id]);
  });

  it("keyword: punctuation and tsquery syntax are plain separators", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const listing = await createListing(t.app, seller, { title: `Query ${word} builder` });
    expect(await browseIds({ keyword: `'${word}' & | ! :* (builder)` })).toEqual([listing.id]);
    expect(await browseIds({ keyword: "&|!():*'" })).toEqual([]);
  });

  it("category and listing_type", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const coding = await createListing(t.app, seller, { title: word, category: "coding" });
    const design = await createListing(t.app, seller, { title: word, category: "design" });
    expect(await browseIds({ keyword: word, category: "coding" })).toEqual([coding.id]);
    expect(await browseIds({ keyword: word, category: "design" })).toEqual([design.id]);
    expect(await browseIds({ keyword: word, category: "research" })).toEqual([]);
    expect(await browseIds({ keyword: word, listing_type: "FIXED" })).toEqual([design.id, coding.id]);
    expect(await browseIds({ keyword: word, listing_type: "BOUNTY" })).toEqual([]);
  });

  it("min_price, max_price (inclusive) and starter", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const cheap = await createListing(t.app, seller, { title: word, price_wei: "1" });
    const dollar = await createListing(t.app, seller, { title: word, price_wei: "1000000" });
    const above = await createListing(t.app, seller, { title: word, price_wei: "1000001" });
    const dear = await createListing(t.app, seller, { title: word, price_wei: "900000000000000000000000000000" });
    const sorted = { keyword: word, sort: "cheapest" };
    expect(await browseIds({ ...sorted, min_price: "1000000" })).toEqual([dollar.id, above.id, dear.id]);
    expect(await browseIds({ ...sorted, max_price: "1000000" })).toEqual([cheap.id, dollar.id]);
    expect(await browseIds({ ...sorted, min_price: "2", max_price: "1000001" })).toEqual([dollar.id, above.id]);
    expect(await browseIds({ ...sorted, min_price: "1000000", max_price: "1000000" })).toEqual([dollar.id]);
    expect(await browseIds({ ...sorted, min_price: "0" })).toHaveLength(4);
    expect(await browseIds({ ...sorted, starter: "true" })).toEqual([cheap.id, dollar.id]);
    expect(await browseIds({ ...sorted, starter: "false" })).toEqual([cheap.id, dollar.id, above.id, dear.id]);
    expect(await browseIds({ ...sorted, starter: "true", min_price: "2" })).toEqual([dollar.id]);
    // Every browse without a keyword honours the starter bound too.
    const starters = (await browse({ starter: "true", limit: "100" })).listings;
    expect(starters.every((listing: { price_wei: string }) => BigInt(listing.price_wei) <= 1_000_000n)).toBe(true);
  });

  it("exclude_agent leaves one agent's listings out", async () => {
    const first = await registerAgent(t.app);
    const second = await registerAgent(t.app);
    const word = uniqueWord();
    const mine = await createListing(t.app, first, { title: word });
    const theirs = await createListing(t.app, second, { title: word });
    expect(await browseIds({ keyword: word })).toEqual([theirs.id, mine.id]);
    expect(await browseIds({ keyword: word, exclude_agent: first.id })).toEqual([theirs.id]);
    expect(await browseIds({ keyword: word, exclude_agent: second.id })).toEqual([mine.id]);
    const page = (await browse({ exclude_agent: first.id, limit: "100" })).listings;
    expect(page.some((listing: { agent: { id: string } }) => listing.agent.id === first.id)).toBe(false);
  });

  it("sorts newest (default), cheapest and popular, ties by id", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const a = await createListing(t.app, seller, { title: word, price_wei: "3000000" });
    const b = await createListing(t.app, seller, { title: word, price_wei: "1000000" });
    const c = await createListing(t.app, seller, { title: word, price_wei: "2000000" });
    const d = await createListing(t.app, seller, { title: word, price_wei: "2000000" });
    await setColumns(a.id, { timesPurchased: 7 });
    await setColumns(b.id, { timesPurchased: 1 });
    await setColumns(c.id, { timesPurchased: 7 });
    await setColumns(d.id, { timesPurchased: 9 });
    const byIdAsc = (x: string, y: string) => (x < y ? -1 : 1);
    const [cdAsc, acAsc] = [[c.id, d.id].sort(byIdAsc), [a.id, c.id].sort(byIdAsc)];
    expect(await browseIds({ keyword: word })).toEqual([d.id, c.id, b.id, a.id]);
    expect(await browseIds({ keyword: word, sort: "newest" })).toEqual([d.id, c.id, b.id, a.id]);
    expect(await browseIds({ keyword: word, sort: "cheapest" })).toEqual([b.id, ...cdAsc, a.id]);
    expect(await browseIds({ keyword: word, sort: "popular" })).toEqual([d.id, ...acAsc.reverse(), b.id]);
  });

  it("pages with limit and cursor, for every sort, with no duplicates or gaps", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const created: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const listing = await createListing(t.app, seller, { title: word, price_wei: String(1_000_000 + (i % 3)) });
      await setColumns(listing.id, { timesPurchased: i % 2 });
      created.push(listing.id);
    }
    for (const sort of ["newest", "cheapest", "popular"]) {
      const single = await browseIds({ keyword: word, sort, limit: "100" });
      expect(single).toHaveLength(8);
      const { ids, pages } = await allPages({ keyword: word, sort, limit: "3" });
      expect(pages).toBe(3);
      expect(ids).toEqual(single);
      expect(new Set(ids).size).toBe(8);
      expect([...ids].sort()).toEqual([...created].sort());
    }
    // A page exactly as long as what is left says there is no next page.
    const exact = await browse({ keyword: word, limit: "8" });
    expect(exact.listings).toHaveLength(8);
    expect(exact.next_cursor).toBeNull();
    const first = await browse({ keyword: word, limit: "1" });
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.listings).toHaveLength(1);
  });

  it("pages rows created within one millisecond apart (cursors keep microseconds)", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const rows = await t.db
      .insert(listings)
      .values(
        ["000100", "000200", "000300", "000300"].map((micros) => ({
          agentId: seller.id,
          title: word,
          description: "Same millisecond",
          category: "other",
          listingType: "FIXED",
          priceWei: "1000000",
          createdAt: sql`${`2021-03-04 05:06:07.${micros}+00`}::timestamptz`,
        })),
      )
      .returning({ id: listings.id });
    const [a, b, c, d] = rows.map((row) => row.id) as [string, string, string, string];
    const [newer, older] = c > d ? [c, d] : [d, c];
    const { ids, pages } = await allPages({ keyword: word, limit: "1" });
    expect(ids).toEqual([newer, older, b, a]);
    expect(pages).toBe(4);
  });

  it("sorts expensive (price descending, ties by id descending), and highest the same, with cursors of their own", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const listed = (price_wei: string): Promise<{ id: string }> =>
      createListing(t.app, seller, { title: word, price_wei });
    const a = await listed("3000000");
    const b = await listed("1000000");
    const c = await listed("2000000");
    const d = await listed("2000000");
    const dear = await listed("900000000000000000000000000000");
    const made = [a, b, c, d, dear];
    const cdDesc = [c.id, d.id].sort().reverse();
    const expected = [dear.id, a.id, ...cdDesc, b.id];
    expect(await browseIds({ keyword: word, sort: "expensive" })).toEqual(expected);
    expect(await browseIds({ keyword: word, sort: "highest" })).toEqual(expected);
    expect(await browseIds({ keyword: word, sort: "cheapest" })).toEqual([...expected].reverse());
    for (const sort of ["expensive", "highest"]) {
      const { ids, pages } = await allPages({ keyword: word, sort, limit: "2" });
      expect(ids).toEqual(expected);
      expect(pages).toBe(3);
      // Without a keyword too (the sort's own index), within a price range.
      const ranged = await allPages({ sort, limit: "100", min_price: "2000000", max_price: "3000000" });
      expect(ranged.ids.filter((id) => made.some((listing) => listing.id === id))).toEqual([a.id, ...cdDesc]);
    }
    // A page of expensive is in price order, whatever else is listed.
    const page = (await browse({ sort: "expensive", limit: "100" })).listings.map((listing: { price_wei: string }) =>
      BigInt(listing.price_wei),
    );
    expect(page.every((price: bigint, k: number) => k === 0 || page[k - 1] >= price)).toBe(true);
    // expensive's and highest's cursors are one sort's: either follows the other.
    const first = await browse({ keyword: word, sort: "highest", limit: "2" });
    expect(await browseIds({ keyword: word, sort: "expensive", limit: "2", cursor: first.next_cursor })).toEqual(
      cdDesc,
    );
    expect((await get(t.app, `/api/listings?sort=cheapest&cursor=${first.next_cursor}`)).status).toBe(400);
  });

  it("limit: 50 by default, up to 100; above 100 served as 100", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    for (let i = 0; i < 51; i += 1) await createListing(t.app, seller, { title: word });
    const defaults = await browse({ keyword: word });
    expect(defaults.listings).toHaveLength(50);
    expect(defaults.next_cursor).toEqual(expect.any(String));
    const rest = await browse({ keyword: word, cursor: defaults.next_cursor });
    expect(rest.listings).toHaveLength(1);
    expect(rest.next_cursor).toBeNull();
    expect((await browse({ keyword: word, limit: "100" })).listings).toHaveLength(51);
    expect((await browse({ keyword: word, limit: "200" })).listings).toHaveLength(51);
    const clamped = await browse({ keyword: word, limit: "101" });
    expect(clamped.listings).toHaveLength(51);
    expect(clamped.next_cursor).toBeNull();
    // Above 100, a page is the page of 100.
    const hundred = await browse({ limit: "100" });
    expect(await browse({ limit: "200" })).toEqual(hundred);
    expect(await browse({ limit: "100000" })).toEqual(hundred);
  });

  it("hides inactive listings and the listings of paused or inactive agents", async () => {
    const seller = await registerAgent(t.app);
    const paused = await registerAgent(t.app);
    const gone = await registerAgent(t.app);
    const word = uniqueWord();
    const shown = await createListing(t.app, seller, { title: word });
    const deleted = await createListing(t.app, seller, { title: word });
    const deactivated = await createListing(t.app, seller, { title: word });
    const ofPaused = await createListing(t.app, paused, { title: word });
    const ofGone = await createListing(t.app, gone, { title: word });
    expect(await browseIds({ keyword: word })).toEqual([ofGone.id, ofPaused.id, deactivated.id, deleted.id, shown.id]);

    expect((await del(t.app, `/api/listings/${deleted.id}`, seller.key)).status).toBe(200);
    expect((await patch(t.app, `/api/listings/${deactivated.id}`, { is_active: false }, seller.key)).status).toBe(200);
    expect((await patch(t.app, "/api/agents/me", { is_paused: true }, paused.key)).status).toBe(200);
    await t.db.update(agents).set({ isActive: false }).where(eq(agents.id, gone.id));
    expect(await browseIds({ keyword: word })).toEqual([shown.id]);
    for (const sort of ["newest", "cheapest", "popular"]) {
      expect(await browseIds({ keyword: word, sort })).toEqual([shown.id]);
    }
    // Reactivated, a listing is back.
    expect((await patch(t.app, `/api/listings/${deactivated.id}`, { is_active: true }, seller.key)).status).toBe(200);
    expect(await browseIds({ keyword: word })).toEqual([deactivated.id, shown.id]);
  });
});

describe("PATCH /api/listings/{id}", () => {
  it("changes the fields given and answers the details", async () => {
    const seller = await registerAgent(t.app, "Patcher");
    const listing = await createListing(t.app, seller);
    const word = uniqueWord();
    const response = await patch(
      t.app,
      `/api/listings/${listing.id}`,
      {
        title: `Renamed ${word}`,
        description: "New words",
        category: "analysis",
        price_wei: "4200000",
        price_usdc: "4.20",
        is_negotiable: false,
      },
      seller.key,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: listing.id,
      title: `Renamed ${word}`,
      description: "New words",
      category: "analysis",
      price_wei: "4200000",
      price_usdc: "4.20",
      is_negotiable: false,
      is_active: true,
      agents: { id: seller.id, name: "Patcher" },
    });
    // The search column follows the new title.
    expect(await browseIds({ keyword: word })).toEqual([listing.id]);
  });

  it("checks price_usdc alone against the stored price; an empty body changes nothing", async () => {
    const seller = await registerAgent(t.app);
    const listing = await createListing(t.app, seller, { price_wei: "1500000" });
    const ok = await patch(t.app, `/api/listings/${listing.id}`, { price_usdc: "1.50" }, seller.key);
    expect(ok.status).toBe(200);
    const empty = await patch(t.app, `/api/listings/${listing.id}`, {}, seller.key);
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual(listing);
  });
});

describe("DELETE /api/listings/{id}", () => {
  it("deactivates the listing, and a repeat answers the same", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const listing = await createListing(t.app, seller, { title: word });
    const first = await del(t.app, `/api/listings/${listing.id}`, seller.key);
    expect(first.status).toBe(200);
    const body = await json(first);
    expect(body).toEqual({ ...listing, is_active: false, state: "closed" });
    const again = await del(t.app, `/api/listings/${listing.id}`, seller.key);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
    expect(await browseIds({ keyword: word })).toEqual([]);
    // Still listed nowhere in the seller's public profile, which shows active listings only.
    const profile = await json(await get(t.app, `/api/agents/${seller.id}`));
    expect(profile.listings).toEqual([]);
  });
});

describe("OpenAPI document", () => {
  it("describes the listing routes and their responses", async () => {
    const document = await json(await get(t.app, "/api/openapi.json"));
    const collection = document.paths["/api/listings"];
    const item = document.paths["/api/listings/{id}"];
    // 429 everywhere (every /api request spends a budget); 409 and 422 of an Idempotency-Key.
    expect(Object.keys(collection.get.responses).sort()).toEqual(["200", "400", "429"]);
    // 202: a hosted agent's bounty above its owner's approval threshold waits for the approval.
    expect(Object.keys(collection.post.responses).sort()).toEqual([
      "201",
      "202",
      "400",
      "401",
      "402",
      "403",
      "409",
      "413",
      "415",
      "422",
      "429",
    ]);
    expect(Object.keys(item.get.responses).sort()).toEqual(["200", "404", "429"]);
    expect(Object.keys(item.patch.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "415",
      "429",
    ]);
    expect(Object.keys(item.delete.responses).sort()).toEqual(["200", "401", "403", "404", "429"]);
    const parameters = collection.get.parameters.map((parameter: { name: string }) => parameter.name).sort();
    expect(parameters).toEqual(
      [
        "categories",
        "category",
        "cursor",
        "exclude_agent",
        "include_completed",
        "keyword",
        "limit",
        "listing_type",
        "max_price",
        "min_price",
        "owner",
        "skill",
        "sort",
        "starter",
        "status",
      ].sort(),
    );
    const sort = collection.get.parameters.find((parameter: { name: string }) => parameter.name === "sort");
    expect(sort.schema.enum).toEqual(["newest", "cheapest", "popular", "expensive", "highest"]);
    const categories = collection.get.parameters.find((parameter: { name: string }) => parameter.name === "categories");
    expect(categories.schema).toMatchObject({ type: "array", items: { enum: expect.arrayContaining(["coding"]) } });
    const limit = collection.get.parameters.find((parameter: { name: string }) => parameter.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, default: 50 });
    expect(limit.schema.maximum).toBeUndefined();
    expect(document.components.schemas.CreateListing.properties.title.maxLength).toBe(200);
    expect(document.components.schemas.CreateListing.properties.description.maxLength).toBe(10_000);
  });
});

describe("GET /api/listings: the live service's query keys", () => {
  it("status=active is the default and changes nothing", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const listing = await createListing(t.app, seller, { title: word });
    expect(await browseIds({ keyword: word, status: "active" })).toEqual([listing.id]);
    expect(await browseIds({ keyword: word, status: "active", sort: "newest" })).toEqual(
      await browseIds({ keyword: word }),
    );
  });

  it("skill: a category's name filters by category, any other word is a keyword", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const coding = await createListing(t.app, seller, { title: `${word} tool`, category: "coding" });
    const design = await createListing(t.app, seller, { title: `${word} logo`, category: "design" });
    expect(await browseIds({ keyword: word, skill: "coding" })).toEqual([coding.id]);
    expect(await browseIds({ keyword: word, skill: "Design" })).toEqual([design.id]);
    expect(await browseIds({ keyword: word, skill: "coding", category: "design" })).toEqual([]);
    // Not a category: a word the listing must have too.
    expect(await browseIds({ keyword: word, skill: "logo" })).toEqual([design.id]);
    expect(await browseIds({ skill: word })).toEqual([design.id, coding.id]);
    expect(await browseIds({ keyword: word, skill: "nothinglikeit" })).toEqual([]);
    // Without a keyword, skill=coding shows only coding listings.
    const page = (await browse({ skill: "coding", limit: "100" })).listings;
    expect(page.length).toBeGreaterThan(0);
    expect(page.every((listing: { category: string }) => listing.category === "coding")).toBe(true);
  });

  it("categories: any of them, comma-separated and/or repeated; with category, both", async () => {
    const seller = await registerAgent(t.app);
    const word = uniqueWord();
    const coding = await createListing(t.app, seller, { title: word, category: "coding" });
    const data = await createListing(t.app, seller, { title: word, category: "data" });
    await createListing(t.app, seller, { title: word, category: "writing" });
    const both = [data.id, coding.id];
    const ids = async (query: string) => {
      const response = await get(t.app, `/api/listings?keyword=${word}&${query}`);
      expect(response.status, query).toBe(200);
      return (await json(response)).listings.map((listing: { id: string }) => listing.id);
    };
    expect(await ids("categories=coding")).toEqual([coding.id]);
    expect(await ids("categories=coding,data")).toEqual(both);
    expect(await ids("categories=coding&categories=data")).toEqual(both);
    expect(await ids("categories=coding,data&categories=research")).toEqual(both);
    expect(await ids("categories=coding,data&category=data")).toEqual([data.id]);
    expect(await ids("categories=coding,data&category=writing")).toEqual([]);
    expect(await ids("categories=coding,data&skill=data")).toEqual([data.id]);
    for (const sort of ["cheapest", "popular", "expensive"]) {
      expect((await ids(`categories=coding,data&sort=${sort}`)).sort(), sort).toEqual([...both].sort());
    }
    // Without a keyword: only those categories.
    const page = (await browse({ categories: "coding,data", limit: "100" })).listings;
    expect(page.every((listing: { category: string }) => ["coding", "data"].includes(listing.category))).toBe(true);
  });

  it("owner: the listings of the agents an owner's wallet owns, any case", async () => {
    const owner = newWallet();
    const session = await sessionOf(t.app, owner, t.config.chainId);
    const word = uniqueWord();
    const created = [];
    for (const name of ["first", "second"]) {
      const response = await post(t.app, "/api/owner/agents", { name }, session);
      expect(response.status).toBe(201);
      const body = await json(response);
      created.push({ id: body.agent.id as string, key: body.api_key as string });
    }
    const [first, second] = created as [{ id: string; key: string }, { id: string; key: string }];
    const mine = [
      await createListing(t.app, first, { title: word }),
      await createListing(t.app, second, { title: word }),
    ];
    // An external agent is owned by its own wallet.
    const external = await registerAgent(t.app);
    const its = await createListing(t.app, external, { title: word });
    const expected = [mine[1].id, mine[0].id];
    expect(await browseIds({ keyword: word, owner: owner.address })).toEqual(expected);
    expect(await browseIds({ keyword: word, owner: owner.address.toLowerCase() })).toEqual(expected);
    expect(await browseIds({ owner: owner.address.toLowerCase(), limit: "100" })).toEqual(expected);
    expect(await browseIds({ owner: owner.address, sort: "expensive", category: "other" })).toHaveLength(2);
    expect(await browseIds({ owner: external.wallet.address })).toEqual([its.id]);
    expect(await browseIds({ owner: newWallet().address })).toEqual([]);
    // Pages by cursor.
    const { ids, pages } = await allPages({ owner: owner.address, limit: "1" });
    expect(ids).toEqual(expected);
    expect(pages).toBe(2);
  });

  it("include_completed: listings no longer active too, still only of listed sellers", async () => {
    const seller = await registerAgent(t.app);
    const paused = await registerAgent(t.app);
    const word = uniqueWord();
    const shown = await createListing(t.app, seller, { title: word, price_wei: "1000000" });
    const delisted = await createListing(t.app, seller, { title: word, price_wei: "2000000" });
    const ofPaused = await createListing(t.app, paused, { title: word });
    expect((await del(t.app, `/api/listings/${delisted.id}`, seller.key)).status).toBe(200);
    const hidden = await createListing(t.app, paused, { title: word });
    await setColumns(hidden.id, { isActive: false });
    expect((await patch(t.app, "/api/agents/me", { is_paused: true }, paused.key)).status).toBe(200);
    expect(await browseIds({ keyword: word })).toEqual([shown.id]);
    expect(await browseIds({ keyword: word, include_completed: "false" })).toEqual([shown.id]);
    expect(await browseIds({ keyword: word, include_completed: "true" })).toEqual([delisted.id, shown.id]);
    expect(await browseIds({ keyword: word, include_completed: "true", sort: "expensive" })).toEqual([
      delisted.id,
      shown.id,
    ]);
    // Each card says which listings are no longer active; without include_completed all are.
    const both = (await browse({ keyword: word, include_completed: "true" })).listings;
    expect(both.map((listing: { id: string; is_active: boolean }) => [listing.id, listing.is_active])).toEqual([
      [delisted.id, false],
      [shown.id, true],
    ]);
    expect((await browse({ keyword: word })).listings.map((l: { is_active: boolean }) => l.is_active)).toEqual([true]);
    expect(await browseIds({ keyword: `${word} extra`, include_completed: "true" })).toEqual([]);
    const { ids } = await allPages({ keyword: word, include_completed: "true", limit: "1", sort: "cheapest" });
    expect(ids).toEqual([shown.id, delisted.id]);
    expect(ids).not.toContain(ofPaused.id);
    // With an owner filter too.
    expect(await browseIds({ owner: seller.wallet.address, include_completed: "true" })).toEqual([
      delisted.id,
      shown.id,
    ]);
  });
});
