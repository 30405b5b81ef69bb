import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createListing, registerAgent, type TestApp, testApp } from "../../../test/harness.ts";
import { listings } from "../../db/schema.ts";
import { DEFAULT_DELIVERY_HOURS } from "../shared/listing-terms.ts";
import { formatUsdc } from "../shared/money.ts";
import { listingFields } from "./listing-browse.ts";
import { keepListingCards } from "./listing-cards.ts";
import { formatRating } from "./ratings.ts";

/*
 * The stored card (app.listings.card_text) must be, at every moment, what listingSummary says of
 * the row: after the insert and after an update of any column it shows, whoever makes it.
 */

/** A listing's row as its card must show it, written in TypeScript: what Postgres' card is held to. */
type ListingRow = { [K in keyof typeof listingFields]: (typeof listingFields)[K]["_"]["data"] };
function listingSummary(row: Omit<ListingRow, "bountyDeliveryHours"> & { bountyDeliveryHours: number | null }) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    category: row.category,
    listing_type: row.listingType,
    price_wei: row.priceWei,
    price_usdc: formatUsdc(row.priceWei),
    currency: "USDC",
    is_negotiable: row.isNegotiable,
    accepts_proposals: row.acceptsProposals,
    times_purchased: row.timesPurchased,
    avg_rating: formatRating(row.ratingSum, row.ratingCount),
    created_at: row.createdAt.toISOString(),
    rating_count: row.ratingCount,
    delivery_hours: row.bountyDeliveryHours ?? DEFAULT_DELIVERY_HOURS,
  };
}
let t: TestApp;
let seller: { id: string; key: string };

beforeAll(async () => {
  t = await testApp();
  seller = await registerAgent(t.app, "card seller");
});
afterAll(() => t.close());

/** The stored card of a listing, and the card listingSummary makes of its row now. */
async function cardsOf(id: string) {
  const [row] = await t.db
    .select({ ...listingFields, cardText: listings.cardText })
    .from(listings)
    .where(eq(listings.id, id));
  if (!row) throw new Error(`no listing ${id}`);
  // Stored open, without its closing brace (see listingCardSql).
  return { stored: JSON.parse(`${row.cardText}}`), summary: listingSummary(row) };
}

describe("stored listing cards", () => {
  it("are the listing's summary after its insert and after any change to a column the card shows", async () => {
    const { id } = await createListing(t.app, seller, { title: 'A "quoted" \\ title', price_wei: "1234567" });
    const first = await cardsOf(id);
    expect(first.stored).toEqual(first.summary);
    expect(first.stored.title).toBe('A "quoted" \\ title');

    const changes = [
      sql`title = 'Ünïcode — title'`,
      sql`description = e'two\\nlines'`,
      sql`price_wei = 123456789012345678901234567890`,
      sql`category = 'design', listing_type = 'BOUNTY'`,
      sql`accepts_proposals = true`,
      sql`is_negotiable = NOT is_negotiable`,
      sql`times_purchased = times_purchased + 7`,
      sql`rating_sum = 14, rating_count = 3`,
      sql`bounty_delivery_hours = 24`,
      sql`created_at = '2020-02-29T23:59:59.999999Z'`,
    ];
    for (const change of changes) {
      await t.db.execute(sql`UPDATE app.listings SET ${change} WHERE id = ${id}`);
      const now = await cardsOf(id);
      expect(now.stored).toEqual(now.summary);
    }
    const last = await cardsOf(id);
    expect(last.stored).toMatchObject({
      price_usdc: "123456789012345678901234.56",
      avg_rating: "4.67",
      rating_count: 3,
      delivery_hours: 24,
    });
    expect(first.stored).toMatchObject({ rating_count: 0, delivery_hours: DEFAULT_DELIVERY_HOURS });
  });

  it("are written again for every listing when their definition changed, and only then", async () => {
    const { id } = await createListing(t.app, seller);
    const others = await Promise.all([1, 2, 3].map(() => createListing(t.app, seller)));
    const client = await t.db.$client.connect();
    try {
      expect(await keepListingCards(client)).toEqual({ rewritten: false });
      // A card written by an older definition, and the hash of that older definition.
      const ids = [id, ...others.map((listing) => listing.id as string)];
      await client.query("UPDATE app.listings SET card_text = '{' WHERE id = ANY($1)", [ids]);
      expect((await cardsOf(id)).stored).toEqual({});
      await client.query("COMMENT ON FUNCTION app.listing_card(app.listings) IS 'an older card'");
      // In batches of two: every listing is reached however the batches fall.
      expect(await keepListingCards(client, 2)).toEqual({ rewritten: true });
      for (const each of ids) {
        const { stored, summary } = await cardsOf(each);
        expect(stored).toEqual(summary);
      }
      expect(await keepListingCards(client)).toEqual({ rewritten: false });
    } finally {
      client.release();
    }
  });
});
