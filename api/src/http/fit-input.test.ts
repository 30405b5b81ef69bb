import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC } from "../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  newWallet,
  registerHosted,
  sessionOf,
  type TestApp,
  testApp,
  uniqueWord,
} from "../../test/harness.ts";
import { MAX_JSON_DEPTH, refuseUnfitJson } from "./fit-input.ts";

/*
 * Input Postgres cannot hold (U+0000, a lone UTF-16 surrogate) and JSON nested too deep, on every
 * route family: each refused with 400 naming the field, nothing stored; the same request without
 * them goes through, so each refused one was a real write.
 */

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

/** Every table a write of the API changes; a key's last use is bookkeeping, not state. */
const TABLES = [
  "agents",
  "api_keys",
  "listings",
  "transactions",
  "relayed_transactions",
  "deliverables",
  "offers",
  "offer_moves",
  "proposals",
  "messages",
  "reviews",
  "evidence",
  "disputes",
  "notifications",
  "webhook_deliveries",
  "user_sessions",
];
const BOOKKEEPING: Record<string, string> = { api_keys: "(t.id, t.agent_id, t.key_hash, t.prefix, t.revoked_at)" };

async function snapshot(): Promise<string> {
  const parts: string[] = [];
  for (const table of TABLES) {
    const { rows } = await t.db.execute<{ digest: string | null }>(
      sql.raw(
        `SELECT count(*) || ':' || coalesce(md5(string_agg(${BOOKKEEPING[table] ?? "t"}::text, '|' ORDER BY t::text)), '') AS digest FROM app.${table} t`,
      ),
    );
    parts.push(`${table}:${rows[0]?.digest}`);
  }
  return parts.join(",");
}

/** `depth` objects inside one another, as JSON text (JSON.stringify itself would overflow at 5,000). */
const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

/** A body whose `field` is replaced by raw JSON text. */
function withRaw(body: Record<string, unknown>, field: string, raw: string): string {
  return JSON.stringify({ ...body, [field]: "\u0001RAW\u0001" }).replace('"\\u0001RAW\\u0001"', raw);
}

interface Family {
  name: string;
  method: "POST" | "PATCH";
  path: () => string;
  /** The Authorization header's token. */
  bearer?: () => string;
  /** A body the route accepts. */
  body: () => Record<string, unknown>;
  /** A string field of it, spoiled with each unfit character. */
  field: string;
}

async function send(family: Family, body: string) {
  return t.app.request(family.path(), {
    method: family.method,
    headers: {
      "content-type": "application/json",
      ...(family.bearer && { authorization: `Bearer ${family.bearer()}` }),
    },
    body,
  });
}

async function expectRefused(response: Response, code: string, field: string | RegExp) {
  const body = await json(response.clone());
  expect(response.status, JSON.stringify(body)).toBe(400);
  expect(body).toMatchObject({ code, field, error: expect.any(String), request_id: expect.any(String) });
}

/** Refusals of `family`'s request with each unfit input, nothing stored; then the fit request works. */
async function refusedThenAccepted(family: Family) {
  const body = family.body();
  const value = String(body[family.field]);
  const unfit: Array<{ body: string; code: string; field: string | RegExp }> = [
    {
      body: JSON.stringify({ ...body, [family.field]: `${value}\u0000` }),
      code: "invalid_characters",
      field: `body.${family.field}`,
    },
    {
      body: JSON.stringify({ ...body, [family.field]: `\ud800${value}` }),
      code: "invalid_characters",
      field: `body.${family.field}`,
    },
    {
      body: JSON.stringify({ ...body, [family.field]: `${value}\udfff` }),
      code: "invalid_characters",
      field: `body.${family.field}`,
    },
    { body: JSON.stringify({ ...body, "unknown\u0000": 1 }), code: "invalid_characters", field: "body.unknown\\u0000" },
    {
      body: withRaw(body, family.field, nested(5_000)),
      code: "too_deep",
      field: new RegExp(`^body\\.${family.field}(\\.a)+$`),
    },
    {
      body: withRaw(body, family.field, `[${nested(MAX_JSON_DEPTH)}]`),
      code: "too_deep",
      field: new RegExp(`^body\\.${family.field}\\.0(\\.a)+$`),
    },
  ];
  for (const request of unfit) {
    const before = await snapshot();
    await expectRefused(await send(family, request.body), request.code, request.field);
    expect(await snapshot(), `${family.name}: nothing stored`).toBe(before);
  }
  const accepted = await send(family, JSON.stringify(body));
  expect(accepted.status, `${family.name}, fit: ${await accepted.clone().text()}`).toBeLessThan(300);
  return json(accepted);
}

type Agent = Awaited<ReturnType<typeof registerHosted>>;

describe("NUL bytes and deep nesting on every route family: 400, nothing stored", () => {
  let seller: Agent;
  let buyer: Agent;
  let listingId: string;
  let transactionId: string;
  let bountyId: string;
  beforeAll(async () => {
    seller = await registerHosted(t.app, "fit seller");
    buyer = await registerHosted(t.app, "fit buyer", 20n * USDC);
    listingId = (await createListing(t.app, seller, { price_wei: (2n * USDC).toString() })).id;
    const bought = await t.app.request(`/api/listings/${listingId}/buy`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${buyer.key}` },
      body: "{}",
    });
    expect(bought.status).toBe(200);
    transactionId = (await json(bought)).transaction_id;
    bountyId = (
      await createListing(t.app, buyer, {
        title: `Bounty ${uniqueWord()}`,
        listing_type: "BOUNTY",
        accepts_proposals: true,
        price_wei: USDC.toString(),
      })
    ).id;
  });

  it("agents: register (name, bio)", async () => {
    await refusedThenAccepted({
      name: "register",
      method: "POST",
      path: () => "/api/agents/register",
      body: () => ({ name: `fit ${uniqueWord()}`, bio: "hosted" }),
      field: "name",
    });
    await refusedThenAccepted({
      name: "register, bio",
      method: "POST",
      path: () => "/api/agents/register",
      body: () => ({ agent_name: `fit ${uniqueWord()}`, bio: "bio", wallet_address: newWallet().address }),
      field: "bio",
    });
  });

  it("agents: profile update (name, bio, metadata, webhook URL)", async () => {
    for (const [field, value] of [
      ["name", "renamed"],
      ["bio", "about me"],
      ["webhook_url", "http://127.0.0.1:9/hook"],
    ] as const) {
      await refusedThenAccepted({
        name: `PATCH /me ${field}`,
        method: "PATCH",
        path: () => "/api/agents/me",
        bearer: () => seller.key,
        body: () => ({ [field]: value }),
        field,
      });
    }
    // Inside metadata (jsonb), values and keys at any depth.
    const metadata = (inner: string) => `{"metadata":{"a":{"b":[${inner}]}}}`;
    const patchMe = (body: string) =>
      send(
        {
          name: "",
          method: "PATCH",
          path: () => "/api/agents/me",
          bearer: () => seller.key,
          body: () => ({}),
          field: "",
        },
        body,
      );
    for (const [inner, code, field] of [
      [JSON.stringify("x\u0000"), "invalid_characters", "body.metadata.a.b.0"],
      [JSON.stringify("x\ud83d"), "invalid_characters", "body.metadata.a.b.0"],
      [JSON.stringify({ "k\u0000": 1 }), "invalid_characters", "body.metadata.a.b.0.k\\u0000"],
      [JSON.stringify({ "\udc00": 1 }), "invalid_characters", "body.metadata.a.b.0.\\udc00"],
      [nested(5_000), "too_deep", /^body\.metadata\.a\.b\.0(\.a)+$/],
    ] as const) {
      const before = await snapshot();
      await expectRefused(await patchMe(metadata(inner)), code, field);
      expect(await snapshot()).toBe(before);
    }
    // A well-formed pair (an emoji) is fit, and so is the deepest metadata allowed.
    const emoji = await patchMe(
      JSON.stringify({ metadata: { mood: "😀", deep: JSON.parse(nested(MAX_JSON_DEPTH - 2)) } }),
    );
    expect(emoji.status).toBe(200);
    expect((await json(emoji)).metadata.mood).toBe("😀");
  });

  it("listings: create, update, keyword query", async () => {
    await refusedThenAccepted({
      name: "create listing",
      method: "POST",
      path: () => "/api/listings",
      bearer: () => seller.key,
      body: () => ({ agent_id: seller.id, title: "Logo", description: "A logo", price_wei: "1000000" }),
      field: "title",
    });
    await refusedThenAccepted({
      name: "update listing",
      method: "PATCH",
      path: () => `/api/listings/${listingId}`,
      bearer: () => seller.key,
      body: () => ({ description: "A better logo" }),
      field: "description",
    });
    for (const [query, field] of [
      ["keyword=logo%00", "query.keyword"],
      ["keyword=%00", "query.keyword"],
      ["keyword=a&sort=newest%00", "query.sort"],
      ["key%00word=a", "query.key\\u0000word"],
    ]) {
      await expectRefused(await get(t.app, `/api/listings?${query}`), "invalid_characters", field as string);
    }
    await expectRefused(await get(t.app, "/api/agents?keyword=fit%00"), "invalid_characters", "query.keyword");
    expect((await get(t.app, "/api/listings?keyword=logo")).status).toBe(200);
  });

  it("path parameters", async () => {
    for (const path of [
      "/api/agents/%00",
      `/api/listings/${listingId}%00`,
      "/api/transactions/%00/timeline",
      "/api/reviews/%00/feedback.json",
      "/api/messages/%00",
    ]) {
      await expectRefused(await get(t.app, path, seller.key), "invalid_characters", "path");
    }
    const before = await snapshot();
    const deleted = await t.app.request(`/api/listings/${listingId}%00`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${seller.key}` },
    });
    await expectRefused(deleted, "invalid_characters", "path");
    expect(await snapshot()).toBe(before);
  });

  it("messages and feed posts", async () => {
    await refusedThenAccepted({
      name: "direct message",
      method: "POST",
      path: () => "/api/messages/send",
      bearer: () => seller.key,
      body: () => ({ to_agent_id: buyer.id, content: "Hello" }),
      field: "content",
    });
    await refusedThenAccepted({
      name: "feed post",
      method: "POST",
      path: () => "/api/feed",
      bearer: () => seller.key,
      body: () => ({ content: "Open for work" }),
      field: "content",
    });
  });

  it("offers and proposals", async () => {
    const negotiable = await createListing(t.app, seller, { price_wei: "5000000" });
    await refusedThenAccepted({
      name: "offer",
      method: "POST",
      path: () => `/api/listings/${negotiable.id}/offers`,
      bearer: () => buyer.key,
      body: () => ({ price_wei: "4000000", message: "Would you take 4?" }),
      field: "message",
    });
    await refusedThenAccepted({
      name: "proposal",
      method: "POST",
      path: () => `/api/listings/${bountyId}/proposals`,
      bearer: () => seller.key,
      body: () => ({ pitch: "I can do it" }),
      field: "pitch",
    });
  });

  it("a purchase: delivery, dispute, evidence, ruling, review", async () => {
    const path = (move: string) => () => `/api/transactions/${transactionId}/${move}`;
    await refusedThenAccepted({
      name: "deliver",
      method: "POST",
      path: path("deliver"),
      bearer: () => seller.key,
      body: () => ({ deliverable: "The logo" }),
      field: "deliverable",
    });
    await refusedThenAccepted({
      name: "dispute",
      method: "POST",
      path: path("dispute"),
      bearer: () => buyer.key,
      body: () => ({ reason: "Not a logo" }),
      field: "reason",
    });
    await refusedThenAccepted({
      name: "evidence",
      method: "POST",
      path: path("evidence"),
      bearer: () => buyer.key,
      body: () => ({ content: "The brief said a logo" }),
      field: "content",
    });
    await refusedThenAccepted({
      name: "resolve",
      method: "POST",
      path: path("resolve"),
      bearer: () => ARBITER_API_KEY,
      body: () => ({ seller_bps: 5_000, note: "Split" }),
      field: "note",
    });
    await refusedThenAccepted({
      name: "review",
      method: "POST",
      path: path("review"),
      bearer: () => buyer.key,
      body: () => ({ rating: 3, comment: "Half a logo" }),
      field: "comment",
    });
  });

  it("owners: sign-in and a hosted agent registered by a session", async () => {
    const owner = newWallet();
    const session = await sessionOf(t.app, owner, t.config.chainId);
    await refusedThenAccepted({
      name: "owner registers an agent",
      method: "POST",
      path: () => "/api/owner/agents",
      bearer: () => session,
      body: () => ({ name: `owned ${uniqueWord()}`, bio: "mine" }),
      field: "name",
    });
  });

  it("the MCP endpoint's tools: their calls into the API are refused the same way", async () => {
    const client = new Client({ name: "fit-input-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${seller.key}` } },
      fetch: async (url, init) => t.app.request(String(url), init),
    });
    await client.connect(transport);
    try {
      type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text: string }> };
      const call = async (args: Record<string, unknown>) => {
        const answer = (await client.callTool({ name: "update_profile", arguments: args })) as ToolAnswer;
        return { isError: answer.isError, body: JSON.parse(answer.content[0]?.text ?? "null") };
      };
      const before = await snapshot();
      expect(await call({ name: "mcp\u0000" })).toMatchObject({
        isError: true,
        body: { status: 400, code: "invalid_characters" },
      });
      expect(await call({ metadata: { a: "\ud800" } })).toMatchObject({
        isError: true,
        body: { status: 400, code: "invalid_characters" },
      });
      expect(await call({ metadata: JSON.parse(nested(MAX_JSON_DEPTH + 5)) })).toMatchObject({
        isError: true,
        body: { status: 400, code: "too_deep" },
      });
      expect(await snapshot()).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe("refuseUnfitJson", () => {
  it("walks 100,000 levels without recursion and names the first container past the limit", () => {
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`);
    expect(() => refuseUnfitJson(deep)).toThrow(/nests deeper than 32/);
  });

  it("takes bodies up to the limit, well-formed pairs and every other character", () => {
    expect(() => refuseUnfitJson(JSON.parse(nested(MAX_JSON_DEPTH)))).not.toThrow();
    expect(() => refuseUnfitJson({ a: "😀\uffff\u0001\u001f", "😀": ["\ud83d\ude00"] })).not.toThrow();
    expect(() => refuseUnfitJson(JSON.parse(nested(MAX_JSON_DEPTH + 1)))).toThrow(/too_deep|nests deeper/);
  });
});
