import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTransaction } from "../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  json,
  registerAgent,
  sessionOf,
  type TestApp,
  testApp,
} from "../../test/harness.ts";

/**
 * Random bodies, query strings, path ids and keys thrown at every route: never a 5xx, always the
 * one error shape, and a refused request changes nothing in the database. The strings include
 * what Postgres cannot hold (U+0000, lone UTF-16 surrogates) and the bodies JSON nested up to
 * 5,000 deep (http/fit-input.ts refuses both).
 */

let t: TestApp;
let caller: Awaited<ReturnType<typeof registerAgent>>;
/** Real ids, so that some requests reach existing rows: the caller's, and another agent's. */
let realIds: string[];
/** The caller's owner's session (its wallet signed in). */
let session: string;
beforeAll(async () => {
  t = await testApp();
  caller = await registerAgent(t.app, "fuzz caller");
  session = await sessionOf(t.app, caller.wallet, t.config.chainId);
  const other = await registerAgent(t.app, "fuzz other");
  realIds = [
    caller.id,
    other.id,
    (await createListing(t.app, caller)).id,
    (await createListing(t.app, other)).id,
    await insertTransaction(t.db, { buyer: caller.id, seller: other.id, amountWei: 1_000_000n }),
  ];
});
afterAll(() => t.close());

interface RouteUnderTest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** `{id}` (and `{key_id}`) is replaced by a random or real id. */
  path: string;
  /**
   * A body the route takes from the caller, its text fields `fill`: sent with the caller's key, it
   * reaches the database unless `fill` is refused.
   */
  shape?: (fill: string) => Record<string, unknown>;
}

/** Every route of the API. A route added to the app belongs here. */
const ROUTES: RouteUnderTest[] = [
  { method: "POST", path: "/api/agents/register", shape: (fill) => ({ agent_name: fill, bio: fill }) },
  { method: "GET", path: "/api/agents/me" },
  { method: "PATCH", path: "/api/agents/me", shape: (fill) => ({ bio: fill, metadata: { note: fill } }) },
  { method: "POST", path: "/api/agents/me/rotate-key" },
  { method: "POST", path: "/api/agents/rotate-key" },
  { method: "GET", path: "/api/agents/key-challenge" },
  { method: "GET", path: "/api/agents/balance" },
  { method: "GET", path: "/api/agents" },
  { method: "GET", path: "/api/agents/{id}" },
  { method: "GET", path: "/api/health" },
  { method: "GET", path: "/api/ready" },
  { method: "GET", path: "/api/live" },
  {
    method: "POST",
    path: "/api/listings",
    shape: (fill) => ({ agent_id: caller.id, title: fill, description: fill, price_wei: "1000000" }),
  },
  { method: "GET", path: "/api/listings" },
  { method: "GET", path: "/api/listings/{id}" },
  { method: "PATCH", path: "/api/listings/{id}" },
  { method: "DELETE", path: "/api/listings/{id}" },
  { method: "GET", path: "/api/agents/me/listings" },
  { method: "POST", path: "/api/listings/{id}/buy" },
  { method: "POST", path: "/api/listings/{id}/claim" },
  {
    method: "POST",
    path: "/api/listings/{id}/offers",
    shape: (fill) => ({ price_wei: "1000000", message: fill }),
  },
  { method: "GET", path: "/api/listings/{id}/offers" },
  { method: "GET", path: "/api/offers" },
  { method: "GET", path: "/api/offers/{id}" },
  { method: "POST", path: "/api/offers/{id}/counter" },
  { method: "POST", path: "/api/offers/{id}/accept" },
  { method: "POST", path: "/api/offers/{id}/decline" },
  { method: "POST", path: "/api/offers/{id}/withdraw" },
  { method: "POST", path: "/api/listings/{id}/proposals" },
  { method: "GET", path: "/api/listings/{id}/proposals" },
  { method: "GET", path: "/api/proposals" },
  { method: "GET", path: "/api/proposals/{id}" },
  { method: "POST", path: "/api/proposals/{id}/accept" },
  { method: "POST", path: "/api/proposals/{id}/decline" },
  { method: "POST", path: "/api/proposals/{id}/withdraw" },
  { method: "POST", path: "/api/transactions" },
  { method: "GET", path: "/api/wallet/balance" },
  { method: "POST", path: "/api/wallet/withdraw" },
  { method: "GET", path: "/api/wallet/withdrawals" },
  { method: "POST", path: "/api/dev/faucet" },
  { method: "POST", path: "/api/dev/rpc" },
  { method: "GET", path: "/api/stats/daily" },
  { method: "GET", path: "/api/leaderboard" },
  { method: "POST", path: "/api/transactions/{id}/confirm" },
  { method: "POST", path: "/api/transactions/{id}/deliver" },
  { method: "GET", path: "/api/transactions/{id}/timeline" },
  { method: "GET", path: "/api/transactions/{id}/deliverable" },
  { method: "POST", path: "/api/transactions/{id}/evidence" },
  { method: "POST", path: "/api/transactions/{id}/resolve" },
  { method: "GET", path: "/api/disputes" },
  { method: "GET", path: "/api/disputes/{id}" },
  { method: "POST", path: "/api/transactions/{id}/release" },
  { method: "POST", path: "/api/transactions/{id}/refund" },
  { method: "POST", path: "/api/transactions/{id}/dispute" },
  { method: "GET", path: "/api/transactions" },
  { method: "GET", path: "/api/transactions/{id}" },
  { method: "GET", path: "/api/agents/{id}/registration.json" },
  { method: "GET", path: "/api/agents/{id}/erc8004" },
  { method: "POST", path: "/api/agents/me/erc8004/register" },
  { method: "GET", path: "/api/reviews/{id}/feedback.json" },
  { method: "POST", path: "/api/agents/me/owner" },
  { method: "POST", path: "/api/agents/me/webhook/test" },
  { method: "GET", path: "/api/owner/agents" },
  { method: "POST", path: "/api/owner/agents" },
  { method: "GET", path: "/api/owner/agents/{id}/keys" },
  { method: "POST", path: "/api/owner/agents/{id}/keys" },
  { method: "DELETE", path: "/api/owner/agents/{id}/keys/{key_id}" },
  { method: "GET", path: "/api/owner/agents/{id}/limits" },
  { method: "PUT", path: "/api/owner/agents/{id}/limits" },
  { method: "GET", path: "/api/owner/approvals" },
  { method: "POST", path: "/api/owner/approvals/{id}/approve" },
  { method: "POST", path: "/api/owner/approvals/{id}/decline" },
  { method: "GET", path: "/api/agents/me/limits" },
  { method: "POST", path: "/api/messages/send", shape: (fill) => ({ to_agent_id: realIds[1], content: fill }) },
  { method: "GET", path: "/api/messages/{id}" },
  { method: "POST", path: "/api/feed", shape: (fill) => ({ content: fill }) },
  { method: "GET", path: "/api/feed" },
  { method: "POST", path: "/api/transactions/{id}/review" },
  { method: "GET", path: "/api/agents/{id}/reviews" },
  { method: "POST", path: "/api/notifications/read" },
];

const APP_TABLES = [
  "agents",
  "api_keys",
  "key_challenges",
  "listings",
  "transactions",
  "relayed_transactions",
  "accepted_tx_hashes",
  "deliverables",
  "withdrawals",
  "idempotency_keys",
  "evidence",
  "disputes",
  "offers",
  "offer_moves",
  "proposals",
  "webhook_endpoints",
  "messages",
  "reviews",
  "spending_limits",
  "spending_approvals",
  "agent_spends",
];

/** Columns that are bookkeeping, not state: a key's last use is written as it is used. */
const BOOKKEEPING: Record<string, string> = { api_keys: "(t.id, t.agent_id, t.key_hash, t.prefix, t.revoked_at)" };

/** A fingerprint of every row the API owns. */
async function snapshot(): Promise<string> {
  const parts: string[] = [];
  for (const table of APP_TABLES) {
    const { rows } = await t.db.execute<{ digest: string | null }>(
      sql.raw(
        `SELECT md5(string_agg(${BOOKKEEPING[table] ?? "t"}::text, '|' ORDER BY t::text)) AS digest FROM app.${table} t`,
      ),
    );
    parts.push(`${table}:${rows[0]?.digest}`);
  }
  return parts.join(",");
}

/** Characters Postgres text and jsonb cannot hold as they come (U+0000, lone surrogates), among others. */
const unfitText = fc.string({
  unit: fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "a", "😀", " "),
});

const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  unfitText,
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udc00",
    "",
    " ",
    "null",
    "0",
    "-1",
    "1e309",
    "99999999999999999999999999999999999999999999999999999999999999999999999999999999",
    "<script>",
    "' OR 1=1 --",
    "%00",
    "../../etc",
  ),
);

const idSegment = fc.oneof(
  fc.uuid(),
  anyText,
  fc.constant("00000000-0000-0000-0000-000000000000"),
  fc.integer({ min: 0, max: 4 }).map((i) => realIds[i] as string),
);

const body = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(
    fc.constantFrom(
      "agent_name",
      "name",
      "wallet_address",
      "hosted",
      "bio",
      "skills",
      "metadata",
      "is_paused",
      "webhook_url",
      "address",
      "nonce",
      "signature",
      "price_wei",
      "agent_id",
      "title",
      "description",
      "category",
      "listing_type",
      "limit",
      "cursor",
      "state",
      "buyer_agent_id",
      "deadline_hours",
      "tx_hash",
      "deliverable",
      "reason",
      "seller_agent_id",
      "amount_wei",
      "currency",
      "authorization",
      "destination_address",
      "usdc_wei",
      "expires_in_hours",
      "content",
      "message",
      "role",
      "url",
      "seller_bps",
      "note",
      "revoke_others",
      "owner_address",
      "per_purchase_wei",
      "per_day_wei",
      "approval_above_wei",
      "cookie",
      "jsonrpc",
      "id",
      "method",
      "params",
      "__proto__",
      "constructor",
    ),
    fc.oneof(fc.jsonValue(), anyText, fc.dictionary(unfitText, fc.jsonValue(), { maxKeys: 2 })),
  ),
);

/** JSON text nested `depth` deep, in a body field or as the body itself. */
const deepBody = fc
  .tuple(
    fc.constantFrom("metadata", "name", "content", "skills", "params", "deliverable"),
    fc.integer({ min: 1, max: 5_000 }),
    fc.boolean(),
  )
  .map(([field, depth, arrays]) => {
    const nested = arrays
      ? `${"[".repeat(depth)}${"]".repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    return depth % 2 === 0 ? nested : `{"${field}":${nested}}`;
  });

const query = fc.dictionary(
  fc.constantFrom(
    "limit",
    "cursor",
    "sort",
    "keyword",
    "skill",
    "address",
    "agent_id",
    "state",
    "category",
    "min_price",
    "max_price",
    "starter",
    "exclude_agent",
    "listing_type",
    "status",
    "role",
    "days",
    "period",
    "owner",
    "include_completed",
    "categories",
    "search",
    "type",
    "x",
  ),
  anyText,
  { maxKeys: 4 },
);

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) is written as the three bytes
 * UTF-8 would give its code unit (WTF-8): what a careless client sends.
 */
function encodeSegment(text: string): string {
  return text
    .split(/([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/)
    .map((part) => {
      try {
        return encodeURIComponent(part);
      } catch {
        const unit = part.charCodeAt(0);
        return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
          .map((byte) => `%${byte.toString(16).toUpperCase()}`)
          .join("");
      }
    })
    .join("");
}

/** A shaped body's text: often unfit, or JSON nested up to 5,000 deep in its place. */
const fill = fc.oneof(
  unfitText,
  anyText,
  fc.integer({ min: 1, max: 5_000 }).map((depth) => ({ depth })),
);

/** The route's shaped body filled with `value`, as JSON text. */
function shapedBody(route: RouteUnderTest, value: string | { depth: number }): string | undefined {
  if (!route.shape) return undefined;
  if (typeof value === "string") return JSON.stringify(route.shape(value));
  const nested = `${'{"a":'.repeat(value.depth)}1${"}".repeat(value.depth)}`;
  return JSON.stringify(route.shape("\u0001FILL")).replaceAll('"\\u0001FILL"', nested);
}

const auth = fc.constantFrom("none", "valid", "unknown", "garbage", "session", "cookie", "arbiter");

describe("every route under random input", () => {
  it("answers below 500, in the one error shape, and changes nothing when it refuses", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        idSegment,
        query,
        fc.oneof(
          body.map((value) => JSON.stringify(value)),
          anyText,
          deepBody,
        ),
        auth,
        fc.option(fill, { freq: 2 }),
        async (route, id, params, randomBody, randomWho, filled) => {
          const shaped = filled === null ? undefined : shapedBody(route, filled);
          const rawBody = shaped ?? randomBody;
          const who = shaped ? "valid" : randomWho;
          const path = route.path.replace(/\{(id|key_id)\}/g, encodeSegment(id));
          const search = new URLSearchParams(params).toString();
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (who === "valid") headers.authorization = `Bearer ${caller.key}`;
          if (who === "unknown") headers.authorization = `Bearer ${"e".repeat(64)}`;
          // A header cannot carry control characters (the request would not even be sent).
          if (who === "garbage") headers.authorization = `Bearer ${encodeSegment(id)}`;
          // The owner's session, acting for the caller or for whatever the id names.
          if (who === "session") {
            headers.authorization = `Bearer ${session}`;
            headers["x-agent-id"] = encodeSegment(id);
          }
          // The owner's session as a browser holds it, without the page's CSRF header: reads work,
          // writes are refused (403) and change nothing.
          if (who === "cookie") {
            headers.cookie = `am_session=${session}`;
            headers["x-agent-id"] = encodeSegment(id);
          }
          if (who === "arbiter") headers.authorization = `Bearer ${ARBITER_API_KEY}`;
          // Ending the session is a legitimate change: keep it live for the next runs.
          if (route.path === "/api/auth/logout" && who === "session") headers.authorization = "Bearer 0";
          // Rotating the caller's key with its own key is a legitimate change: keep the key valid.
          if (route.path === "/api/agents/me/rotate-key" && (who === "valid" || who === "session")) {
            headers.authorization = "Bearer 0";
          }
          const before = await snapshot();
          const response = await t.app.request(`${path}${search ? `?${search}` : ""}`, {
            method: route.method,
            headers,
            ...(route.method !== "GET" && { body: rawBody }),
          });
          expect(response.status, `${route.method} ${path}?${search}`).toBeLessThan(500);
          if (response.status >= 400) {
            expect(await json(response)).toMatchObject({ error: expect.any(String), code: expect.any(String) });
            expect(await snapshot()).toBe(before);
          } else if (route.path === "/api/owner/agents/{id}/keys" && route.method === "POST") {
            // The owner issued the caller a key, maybe revoking the others: a legitimate change, so
            // the next runs go on with the new key.
            caller.key = (await json(response)).api_key;
          } else {
            // An answer left unread (the notification stream never ends) would keep its reads going.
            await response.body?.cancel();
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
