import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createListing,
  del,
  get,
  json,
  listingRowsOf,
  patch,
  post,
  registerAgent,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../../test/harness.ts";
import { encodeCursor } from "../../domain/shared/cursor.ts";

let t: TestApp;
let seller: Awaited<ReturnType<typeof registerAgent>>;
/** A listing of `seller` that PATCH errors must leave as it is. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
let listing: any;

beforeAll(async () => {
  t = await testApp({ registrationsPerHour: 1_000 });
  seller = await registerAgent(t.app, "Error seller");
  listing = await createListing(t.app, seller, { title: "Kept as is", price_wei: "1500000" });
});
afterAll(() => t.close());

const UINT256_MAX = (2n ** 256n - 1n).toString();
const TOO_BIG = (2n ** 256n).toString();

/** Checks the one error shape and the status. */
async function expectError(response: Response, status: number) {
  const body = await json(response);
  expect({ status: response.status, body }).toMatchObject({
    status,
    body: { error: expect.any(String), code: expect.any(String) },
  });
  return body;
}

/** Stands for the seller's id in bodies built before the seller exists (test collection). */
const SELF = "(the seller's id)";

function validBody(fields: Record<string, unknown> = {}) {
  return {
    agent_id: SELF,
    title: "A listing",
    description: "Some work",
    price_wei: "1500000",
    ...fields,
  };
}

function withoutField(field: string) {
  const body: Record<string, unknown> = validBody();
  delete body[field];
  return body;
}

/** `body` with SELF replaced by the seller's id. */
function resolved(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(resolved);
  if (body && typeof body === "object" && (body as { agent_id?: unknown }).agent_id === SELF) {
    return { ...body, agent_id: seller.id };
  }
  return body;
}

function raw(method: string, path: string, body: string, contentType = "application/json") {
  return t.app.request(path, {
    method,
    headers: { "content-type": contentType, authorization: `Bearer ${seller.key}` },
    body,
  });
}

describe("POST /api/listings: refused bodies create nothing", () => {
  const cases: [string, unknown][] = [
    ["no agent_id", withoutField("agent_id")],
    ["no title", withoutField("title")],
    ["no description", withoutField("description")],
    ["no price_wei", withoutField("price_wei")],
    ["an empty object", {}],
    ["an array", [validBody()]],
    ["a string", "title"],
    ["null", null],
    ["agent_id not a uuid", validBody({ agent_id: "agent-1" })],
    ["agent_id a number", validBody({ agent_id: 42 })],
    ["title a number", validBody({ title: 5 })],
    ["title empty", validBody({ title: "" })],
    ["title blank", validBody({ title: "   " })],
    ["title of 201 characters", validBody({ title: "t".repeat(201) })],
    ["description an array", validBody({ description: ["a"] })],
    ["description empty", validBody({ description: "" })],
    ["description of 10,001 characters", validBody({ description: "d".repeat(10_001) })],
    ["price_wei a fraction", validBody({ price_wei: 1500000.5 })],
    ["price_wei a number past 2^53", validBody({ price_wei: 2 ** 53 })],
    ["price_wei a negative number", validBody({ price_wei: -1 })],
    ["price_wei negative", validBody({ price_wei: "-1" })],
    ["price_wei zero", validBody({ price_wei: "0" })],
    ["price_wei a decimal", validBody({ price_wei: "1.5" })],
    ["price_wei in exponent form", validBody({ price_wei: "1e6" })],
    ["price_wei not numeric", validBody({ price_wei: "abc" })],
    ["price_wei empty", validBody({ price_wei: "" })],
    ["price_wei with spaces", validBody({ price_wei: " 1500000" })],
    ["price_wei hex", validBody({ price_wei: "0x10" })],
    ["price_wei above uint256", validBody({ price_wei: TOO_BIG })],
    ["price_wei of 100 digits", validBody({ price_wei: "9".repeat(100) })],
    ["price_usdc that disagrees", validBody({ price_usdc: "1.49" })],
    ["price_usdc without two decimals", validBody({ price_usdc: "1.5" })],
    ["price_usdc a number", validBody({ price_usdc: 1.5 })],
    ["an unknown category", validBody({ category: "music" })],
    ["a category in capitals", validBody({ category: "CODING" })],
    ["an unknown listing_type", validBody({ listing_type: "AUCTION" })],
    ["a lower-case listing_type", validBody({ listing_type: "fixed" })],
    ["is_negotiable a string", validBody({ is_negotiable: "yes" })],
    ["is_negotiable null", validBody({ is_negotiable: null })],
  ];

  it.each(cases)("400 for %s", async (_name, body) => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await post(t.app, "/api/listings", resolved(body), seller.key), 400);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("names the bad fields", async () => {
    const body = await expectError(
      await post(
        t.app,
        "/api/listings",
        resolved(validBody({ price_wei: "-1", category: "music", extra: 1 })),
        seller.key,
      ),
      400,
    );
    expect(body.code).toBe("invalid_request");
    const fields = body.issues.map((issue: { field: string }) => issue.field);
    expect(fields).toEqual(["price_wei", "category"]);
    expect(body.error).not.toContain("extra");
  });

  it("ignores fields it does not know and fields it does not take on create (read-only or settable later)", async () => {
    const response = await post(
      t.app,
      "/api/listings",
      resolved(validBody({ seller_id: "x", times_purchased: 5, avg_rating: "5.00", is_active: false })),
      seller.key,
    );
    expect(response.status).toBe(201);
    expect(await json(response)).toMatchObject({ times_purchased: 0, avg_rating: "0.00", is_active: true });
  });

  it("400 for a price_usdc that disagrees, with the expected value", async () => {
    const body = await expectError(
      await post(t.app, "/api/listings", resolved(validBody({ price_wei: "2500000", price_usdc: "2.00" })), seller.key),
      400,
    );
    expect(body.expected_price_usdc).toBe("2.50");
  });

  it("400 for malformed JSON, a non-JSON body and an empty body; 415 for another media type", async () => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await raw("POST", "/api/listings", '{"title": "x",'), 400);
    await expectError(await raw("POST", "/api/listings", "not json"), 400);
    await expectError(await raw("POST", "/api/listings", ""), 400);
    await expectError(await raw("POST", "/api/listings", "title=x", "application/x-www-form-urlencoded"), 415);
    await expectError(await raw("POST", "/api/listings", JSON.stringify(validBody()), "text/plain"), 415);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("413 for a body over the limit", async () => {
    const before = await listingRowsOf(t.db, seller.id);
    const body = resolved(validBody({ description: "d".repeat(t.config.bodyLimitBytes + 1) }));
    await expectError(await post(t.app, "/api/listings", body, seller.key), 413);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("a BOUNTY of an external poster is created hidden, with its funding instructions", async () => {
    const word = uniqueWord();
    const response = await post(
      t.app,
      "/api/listings",
      resolved(validBody({ listing_type: "BOUNTY", title: `Bounty ${word}`, deadline_hours: 24 })),
      seller.key,
    );
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body).toMatchObject({ listing_type: "BOUNTY", is_active: false, funding: { state: "PENDING" } });
    expect(body.funding.instructions.calls).toHaveLength(2);
    const page = await json(await get(t.app, `/api/listings?keyword=${word}`));
    expect(page.listings).toEqual([]);
  });

  it("BOUNTY fields on a FIXED listing are 400", async () => {
    const before = await listingRowsOf(t.db, seller.id);
    for (const extra of [{ deadline_hours: 24 }, { expires_in_hours: 24 }]) {
      await expectError(await post(t.app, "/api/listings", resolved(validBody(extra)), seller.key), 400);
    }
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("accepts the largest uint256 price (the bound is exact)", async () => {
    const other = await registerAgent(t.app);
    const created = await createListing(t.app, other, { price_wei: UINT256_MAX });
    expect(created.price_wei).toBe(UINT256_MAX);
  });
});

describe("GET /api/listings: refused queries", () => {
  const cases: [string, string][] = [
    ["an unknown category", "category=music"],
    ["an unknown category among categories", "categories=coding,music"],
    ["an unknown category repeated", "categories=coding&categories=music"],
    ["categories empty", "categories="],
    ["categories of an empty name", "categories=coding,"],
    ["a status other than active", "status=completed"],
    ["status in capitals", "status=ACTIVE"],
    ["an empty skill", "skill="],
    ["a skill of 51 characters", `skill=${"s".repeat(51)}`],
    ["owner not an address", "owner=0x12"],
    ["owner not hex", `owner=0x${"g".repeat(40)}`],
    ["include_completed yes", "include_completed=yes"],
    ["include_completed 1", "include_completed=1"],
    ["an unknown listing_type", "listing_type=AUCTION"],
    ["an unknown sort", "sort=random"],
    ["sort in capitals", "sort=NEWEST"],
    ["a repeated sort", "sort=newest&sort=cheapest"],
    ["limit 0", "limit=0"],
    ["limit 200.5", "limit=200.5"],
    ["limit abc", "limit=abc"],
    ["limit 1.5", "limit=1.5"],
    ["limit -1", "limit=-1"],
    ["limit empty", "limit="],
    ["min_price negative", "min_price=-1"],
    ["min_price not numeric", "min_price=abc"],
    ["min_price a decimal", "min_price=1.5"],
    ["max_price above uint256", `max_price=${TOO_BIG}`],
    ["max_price empty", "max_price="],
    ["min_price above max_price", "min_price=2000000&max_price=1000000"],
    ["starter yes", "starter=yes"],
    ["starter 1", "starter=1"],
    ["exclude_agent not a uuid", "exclude_agent=agent-1"],
    ["an empty keyword", "keyword="],
    ["a keyword of 201 characters", `keyword=${"k".repeat(201)}`],
    ["a cursor that is not one", "cursor=!!!"],
    ["a cursor of garbage base64", `cursor=${Buffer.from("nope").toString("base64url")}`],
    [
      "a cursor of another sort",
      `sort=cheapest&cursor=${encodeCursor({ sort: "newest", at: "2026-01-01T00:00:00.000000Z", id: randomUUID() })}`,
    ],
    ["a cursor with a bad timestamp", `cursor=${encodeCursor({ sort: "newest", at: "yesterday", id: randomUUID() })}`],
    [
      "a cursor on 31 February",
      `cursor=${encodeCursor({ sort: "newest", at: "2026-02-31T00:00:00.000000Z", id: randomUUID() })}`,
    ],
    [
      "a cursor in month 13",
      `cursor=${encodeCursor({ sort: "newest", at: "2026-13-01T00:00:00.000000Z", id: randomUUID() })}`,
    ],
    [
      "a cursor at 25 o'clock",
      `cursor=${encodeCursor({ sort: "newest", at: "2026-01-01T25:00:00.000000Z", id: randomUUID() })}`,
    ],
    [
      "a cursor with a bad id",
      `cursor=${encodeCursor({ sort: "newest", at: "2026-01-01T00:00:00.000000Z", id: "1" })}`,
    ],
    [
      "a cursor with a bad price",
      `sort=cheapest&cursor=${encodeCursor({ sort: "cheapest", price: "-1", id: randomUUID() })}`,
    ],
    [
      "a cursor of cheapest for expensive",
      `sort=expensive&cursor=${encodeCursor({ sort: "cheapest", price: "5", id: randomUUID() })}`,
    ],
    [
      "a cursor of cheapest for highest",
      `sort=highest&cursor=${encodeCursor({ sort: "cheapest", price: "5", id: randomUUID() })}`,
    ],
    [
      "a cursor with a bad price for expensive",
      `sort=expensive&cursor=${encodeCursor({ sort: "expensive", price: "1.5", id: randomUUID() })}`,
    ],
    [
      "a cursor with a count beyond int32",
      `sort=popular&cursor=${encodeCursor({ sort: "popular", purchased: "99999999999", id: randomUUID() })}`,
    ],
    ["a cursor longer than 200 characters", `cursor=${"a".repeat(201)}`],
  ];

  it.each(cases)("400 for %s", async (_name, query) => {
    await expectError(await get(t.app, `/api/listings?${query}`), 400);
  });

  it("names the field and the allowed values of a bad status, category or sort", async () => {
    const status = await expectError(await get(t.app, "/api/listings?status=completed"), 400);
    expect(status.error).toContain("status");
    expect(status.error).toContain('"active"');
    const categories = await expectError(await get(t.app, "/api/listings?categories=coding,music"), 400);
    expect(categories.error).toContain("categories");
    expect(categories.error).toContain('"coding"');
    const sort = await expectError(await get(t.app, "/api/listings?sort=random"), 400);
    expect(sort.error).toContain('"expensive"');
    const owner = await expectError(await get(t.app, "/api/listings?owner=nobody"), 400);
    expect(owner.error).toContain("owner");
  });

  it("ignores query keys it does not know, next to valid ones", async () => {
    for (const query of ["page=2", "sort=newest&agent_id=x", "include_sold=1&listing_type=BOUNTY", "utm_source=a"]) {
      expect((await get(t.app, `/api/listings?${query}`)).status, query).toBe(200);
    }
    // Known keys next to unknown ones are still checked.
    await expectError(await get(t.app, "/api/listings?page=2&sort=random"), 400);
  });

  it("min_price equal to max_price is fine, and a keyword without letters or digits finds nothing", async () => {
    expect((await get(t.app, "/api/listings?min_price=5&max_price=5")).status).toBe(200);
    const body = await json(await get(t.app, `/api/listings?keyword=${encodeURIComponent("!!! ---")}`));
    expect(body).toEqual({ listings: [], next_cursor: null });
  });
});

describe("GET /api/listings/{id}: unknown ids", () => {
  it.each(["not-a-uuid", "123", randomUUID(), "00000000-0000-0000-0000-000000000000", "' OR 1=1 --"])(
    "404 for %s",
    async (id) => {
      const body = await expectError(await get(t.app, `/api/listings/${encodeURIComponent(id)}`), 404);
      expect(body.code).toBe("not_found");
    },
  );
});

describe("PATCH /api/listings/{id}: refused changes leave the listing as it was", () => {
  const cases: [string, unknown][] = [
    ["an array body", [{ title: "x" }]],
    ["null", null],
    ["price_wei a fraction", { price_wei: 10.5 }],
    ["price_wei a negative number", { price_wei: -10 }],
    ["price_wei zero", { price_wei: "0" }],
    ["price_wei negative", { price_wei: "-5" }],
    ["price_wei not numeric", { price_wei: "ten" }],
    ["price_wei above uint256", { price_wei: TOO_BIG }],
    ["price_usdc that disagrees with the stored price", { price_usdc: "9.99" }],
    ["price_usdc that disagrees with the new price", { price_wei: "2000000", price_usdc: "1.50" }],
    ["price_usdc badly formatted", { price_usdc: "1,50" }],
    ["is_active a string", { is_active: "false" }],
    ["is_negotiable a number", { is_negotiable: 0 }],
    ["title empty", { title: "" }],
    ["title of 201 characters", { title: "t".repeat(201) }],
    ["description of 10,001 characters", { description: "d".repeat(10_001) }],
    ["description null", { description: null }],
    ["an unknown category", { category: "music" }],
  ];

  it.each(cases)("400 for %s", async (_name, body) => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await patch(t.app, `/api/listings/${listing.id}`, body, seller.key), 400);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("ignores unknown and read-only fields: they change nothing", async () => {
    const before = await listingRowsOf(t.db, seller.id);
    const body = { colour: "red", listing_type: "BOUNTY", times_purchased: 100, avg_rating: "5.00" };
    expect((await patch(t.app, `/api/listings/${listing.id}`, body, seller.key)).status).toBe(200);
    const after = await listingRowsOf(t.db, seller.id);
    expect(after.map(({ updatedAt: _, ...row }) => row)).toEqual(before.map(({ updatedAt: _, ...row }) => row));
  });

  it("403 for an agent_id of another agent, and nothing changes", async () => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await patch(t.app, `/api/listings/${listing.id}`, { agent_id: randomUUID() }, seller.key), 403);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it("400 for malformed JSON, 413 for a body over the limit", async () => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await raw("PATCH", `/api/listings/${listing.id}`, '{"title":'), 400);
    const big = { description: "d".repeat(t.config.bodyLimitBytes + 1) };
    await expectError(await patch(t.app, `/api/listings/${listing.id}`, big, seller.key), 413);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });

  it.each(["not-a-uuid", randomUUID()])("404 for the unknown listing %s", async (id) => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await patch(t.app, `/api/listings/${id}`, { title: "x" }, seller.key), 404);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });
});

describe("DELETE /api/listings/{id}: unknown ids", () => {
  it.each(["not-a-uuid", randomUUID()])("404 for %s", async (id) => {
    const before = await listingRowsOf(t.db, seller.id);
    await expectError(await del(t.app, `/api/listings/${id}`, seller.key), 404);
    expect(await listingRowsOf(t.db, seller.id)).toEqual(before);
  });
});

describe("the listing errors left alone", () => {
  it("is still active and unchanged", async () => {
    const [row] = await listingRowsOf(t.db, seller.id);
    expect(row).toMatchObject({ id: listing.id, title: "Kept as is", priceWei: "1500000", isActive: true });
    const details = await json(await get(t.app, `/api/listings/${listing.id}`));
    expect(details).toEqual(listing);
  });
});
