import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTransaction } from "../../test/escrow.ts";
import { eventStreamReader } from "../../test/event-stream.ts";
import {
  ARBITER_API_KEY,
  createListing,
  json,
  post,
  registerAgent,
  signIn,
  type TestApp,
  testApp,
} from "../../test/harness.ts";
import { listings, proposals, spendingApprovals } from "../db/schema.ts";

/**
 * Every route of the OpenAPI document, by the credential it is called with: no key, a key nobody
 * holds, and another agent's key. A route that declares `security` answers 401 to the first two
 * and 403 (or acts only on the caller) with the third; a route without it answers the same to
 * everyone. The tables below must name every route of the document, so a new route cannot ship
 * without a decision here.
 */

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerAgent>>;
let intruder: Awaited<ReturnType<typeof registerAgent>>;
let ownerListing: string;
/** A listing of a third agent, which the owner may buy. */
let thirdListing: string;
/** A transaction between the owner (buyer) and a third agent (seller). */
let ownerTransaction: string;
/** The third agent, with whom the owner has a conversation. */
let thirdAgent: string;
/** A webhook delivery of the owner's (the third agent's message, sent to the owner's webhook). */
let ownerDelivery: string;
/** The owner's offer on the third agent's listing. */
let ownerOffer: string;
/** The owner's proposal on the third agent's bounty (rows written here: the bounty needs no escrow to be refused). */
let ownerProposal: string;
let thirdBounty: string;
beforeAll(async () => {
  // One session and one intruder key call every route here, more than a minute's budget (100) of
  // requests: the rate limits have tests of their own.
  t = await testApp({ rateLimitPerMinute: 100_000 });
  owner = await registerAgent(t.app, "owner");
  intruder = await registerAgent(t.app, "intruder");
  ownerListing = (await createListing(t.app, owner)).id;
  const third = await registerAgent(t.app, "third");
  thirdListing = (await createListing(t.app, third)).id;
  ownerTransaction = await insertTransaction(t.db, { buyer: owner.id, seller: third.id, amountWei: 1_000_000n });
  thirdAgent = third.id;
  const sent = await t.app.request("/api/messages/send", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${owner.key}` },
    body: JSON.stringify({ to_agent_id: third.id, content: "between the owner and the third" }),
  });
  if (sent.status !== 201) throw new Error(`send answered ${sent.status}`);
  const hooked = await t.app.request("/api/agents/me", {
    method: "PATCH",
    headers: { "content-type": "application/json", authorization: `Bearer ${owner.key}` },
    body: JSON.stringify({ webhook_url: "http://127.0.0.1:9/hook" }),
  });
  if (hooked.status !== 200) throw new Error(`PATCH answered ${hooked.status}`);
  const reply = await t.app.request("/api/messages/send", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${third.key}` },
    body: JSON.stringify({ to_agent_id: owner.id, content: "a reply, delivered to the owner's webhook" }),
  });
  if (reply.status !== 201) throw new Error(`send answered ${reply.status}`);
  const log = await t.app.request("/api/agents/me/webhook/deliveries", {
    headers: { authorization: `Bearer ${owner.key}` },
  });
  ownerDelivery = (await json(log)).deliveries[0].id;
  const offered = await post(t.app, `/api/listings/${thirdListing}/offers`, { price_wei: "900000" }, owner.key);
  if (offered.status !== 201) throw new Error(`offer answered ${offered.status}`);
  ownerOffer = (await json(offered)).offer.id;
  const [bounty] = await t.db
    .insert(listings)
    .values({
      agentId: third.id,
      title: "A bounty taking proposals",
      description: "x",
      category: "other",
      listingType: "BOUNTY",
      priceWei: "1000000",
      acceptsProposals: true,
    })
    .returning({ id: listings.id });
  thirdBounty = bounty?.id ?? "";
  const [proposal] = await t.db
    .insert(proposals)
    .values({ listingId: thirdBounty, agentId: owner.id, posterAgentId: third.id, pitch: "mine", status: "PENDING" })
    .returning({ id: proposals.id });
  ownerProposal = proposal?.id ?? "";
});
afterAll(() => t.close());

/** The id of the owner's API key, for the owner's key routes. */
let ownerKeyId: string;
beforeAll(async () => {
  const { rows } = await t.db.execute<{ id: string }>(
    sql`SELECT id FROM app.api_keys WHERE agent_id = ${owner.id} AND revoked_at IS NULL LIMIT 1`,
  );
  ownerKeyId = rows[0]?.id ?? "";
});

interface KeyedRoute {
  /** A body the owner's key would be allowed to send. */
  body?: () => unknown;
  /** Path parameters: the owner's resources. */
  params?: () => Record<string, string>;
  /** The answer is an event stream: its first event is read, then the stream is closed. */
  stream?: true;
  /**
   * What another agent's key gets: `forbidden` (403, nothing changes) for a route on a resource,
   * `self` for a route that can only ever act on the caller (the owner's rows do not change),
   * `not its credential` for a route that takes another kind of key (401, nothing changes).
   */
  intruder: "forbidden" | "self" | "not its credential";
}

/** A move of the owner's agent waiting for its owner's approval (written here: no caps are needed to refuse). */
let ownerApproval: string;
beforeAll(async () => {
  const [approval] = await t.db
    .insert(spendingApprovals)
    .values({
      agentId: owner.id,
      action: "withdrawal",
      request: { destination_address: `0x${"12".repeat(20)}`, amount_wei: "1" },
      summary: "a withdrawal",
      amountWei: "1",
      expiresAt: sql`now() + interval '1 day'`,
    })
    .returning({ id: spendingApprovals.id });
  ownerApproval = approval?.id ?? "";
});

/** Routes that need an agent's key, as `METHOD path` of the OpenAPI document. */
const KEYED: Record<string, KeyedRoute> = {
  "GET /api/agents/me": { intruder: "self" },
  "PATCH /api/agents/me": { body: () => ({ name: "renamed" }), intruder: "self" },
  "POST /api/agents/me/rotate-key": { body: () => ({}), intruder: "self" },
  "POST /api/listings": {
    body: () => ({ agent_id: owner.id, title: "In the owner's name", description: "x", price_wei: "1000000" }),
    intruder: "forbidden",
  },
  "PATCH /api/listings/{id}": {
    body: () => ({ title: "Taken over" }),
    params: () => ({ id: ownerListing }),
    intruder: "forbidden",
  },
  "DELETE /api/listings/{id}": { params: () => ({ id: ownerListing }), intruder: "forbidden" },
  "POST /api/transactions": {
    body: () => ({ buyer_agent_id: owner.id, seller_agent_id: intruder.id, amount_wei: "1000000" }),
    intruder: "forbidden",
  },
  "POST /api/transactions/{id}/confirm": {
    body: () => ({ tx_hash: `0x${"ab".repeat(32)}` }),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  "GET /api/transactions/{id}/timeline": { params: () => ({ id: ownerTransaction }), intruder: "forbidden" },
  "GET /api/transactions/{id}/deliverable": { params: () => ({ id: ownerTransaction }), intruder: "forbidden" },
  "POST /api/transactions/{id}/evidence": {
    body: () => ({ content: "proof" }),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  // The arbiter's desk: an agent's key is refused (403), and changes nothing.
  "POST /api/transactions/{id}/resolve": {
    body: () => ({ seller_bps: 5000 }),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  // The desk's reads: the arbiter's key or session only; an agent's key is refused (403).
  "GET /api/disputes": { intruder: "forbidden" },
  "GET /api/disputes/{transaction_id}": { params: () => ({ transaction_id: ownerTransaction }), intruder: "forbidden" },
  "POST /api/transactions/{id}/deliver": {
    body: () => ({ deliverable: "work" }),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  "POST /api/transactions/{id}/release": {
    body: () => ({}),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  "POST /api/transactions/{id}/refund": {
    body: () => ({}),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  "POST /api/transactions/{id}/dispute": {
    body: () => ({ reason: "late" }),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  "POST /api/wallet/withdraw": {
    body: () => ({ destination_address: `0x${"12".repeat(20)}`, amount_wei: "1" }),
    intruder: "self",
  },
  "GET /api/wallet/withdrawals": { intruder: "self" },
  "POST /api/wallet/x402-payments": {
    body: () => ({ payment_required: "not a payment" }),
    intruder: "self",
  },
  "POST /api/listings/{id}/claim": {
    body: () => ({ agent_id: owner.id }),
    params: () => ({ id: thirdListing }),
    intruder: "forbidden",
  },
  "POST /api/listings/{id}/buy": {
    body: () => ({ buyer_agent_id: owner.id }),
    params: () => ({ id: thirdListing }),
    intruder: "forbidden",
  },
  "POST /api/transactions/{id}/review": {
    body: () => ({ rating: 5 }),
    params: () => ({ id: ownerTransaction }),
    intruder: "forbidden",
  },
  // A hosted agent names its owner once; another key (an external intruder: 400) only tries its own.
  "POST /api/agents/me/owner": { body: () => ({ owner_address: `0x${"34".repeat(20)}` }), intruder: "self" },
  // The owner's own routes take a session itself: an agent's key is refused (403) and changes nothing.
  "GET /api/owner/agents": { intruder: "forbidden" },
  "POST /api/owner/agents": { body: () => ({ name: "registered by a key" }), intruder: "forbidden" },
  "GET /api/owner/agents/{id}/keys": { params: () => ({ id: owner.id }), intruder: "forbidden" },
  "POST /api/owner/agents/{id}/keys": {
    body: () => ({ revoke_others: true }),
    params: () => ({ id: owner.id }),
    intruder: "forbidden",
  },
  "DELETE /api/owner/agents/{id}/keys/{key_id}": {
    params: () => ({ id: owner.id, key_id: ownerKeyId }),
    intruder: "forbidden",
  },
  // Spending caps and approvals are the owner's: an agent's key never reads, sets or decides them.
  "GET /api/owner/agents/{id}/limits": { params: () => ({ id: owner.id }), intruder: "forbidden" },
  "PUT /api/owner/agents/{id}/limits": {
    body: () => ({ per_purchase_wei: null, per_day_wei: null, approval_above_wei: null }),
    params: () => ({ id: owner.id }),
    intruder: "forbidden",
  },
  "GET /api/owner/approvals": { intruder: "forbidden" },
  "POST /api/owner/approvals/{id}/approve": { params: () => ({ id: ownerApproval }), intruder: "forbidden" },
  "POST /api/owner/approvals/{id}/decline": { params: () => ({ id: ownerApproval }), intruder: "forbidden" },
  // The caller's own caps, read only.
  "GET /api/agents/me/limits": { intruder: "self" },
  // An owner's session routes take a session token, not an agent's key.
  "POST /api/auth/logout": { intruder: "not its credential" },
  "GET /api/auth/session": { intruder: "not its credential" },
  "GET /api/notifications": { intruder: "self" },
  "POST /api/notifications/read": { body: () => ({ all: true }), intruder: "self" },
  "GET /api/notifications/stream": { intruder: "self", stream: true },
  "GET /api/agents/me/webhook/deliveries": { intruder: "self" },
  "POST /api/agents/me/webhook/deliveries/{id}/redeliver": {
    params: () => ({ id: ownerDelivery }),
    intruder: "forbidden",
  },
  "POST /api/agents/me/webhook/rotate-secret": { intruder: "self" },
  // Tests the caller's own webhook (another key has none: 409).
  "POST /api/agents/me/webhook/test": { intruder: "self" },
  // Messages are always the caller's own: another key reads and writes its own conversations.
  "POST /api/messages/send": { body: () => ({ to_agent_id: thirdAgent, content: "hello" }), intruder: "self" },
  "GET /api/messages": { intruder: "self" },
  "GET /api/messages/{peer_agent_id}": { params: () => ({ peer_agent_id: thirdAgent }), intruder: "self" },
  "POST /api/feed": { body: () => ({ content: "a post" }), intruder: "self" },
  // The live service's paths (aliases of ours): the caller's own, or a party's.
  "POST /api/messages": { body: () => ({ to_agent_id: thirdAgent, content: "hello" }), intruder: "self" },
  "PATCH /api/notifications": { body: () => ({ mark_all_read: true }), intruder: "self" },
  "PATCH /api/agents/{id}": {
    body: () => ({ name: "renamed" }),
    params: () => ({ id: owner.id }),
    intruder: "forbidden",
  },
  "POST /api/agents/{id}/webhook": {
    body: () => ({ url: "https://example.com/hook" }),
    params: () => ({ id: owner.id }),
    intruder: "forbidden",
  },
  "DELETE /api/agents/{id}/webhook": { params: () => ({ id: owner.id }), intruder: "forbidden" },
  "GET /api/transactions/{id}/evidence": { params: () => ({ id: ownerTransaction }), intruder: "forbidden" },
  // An agent registers its own ERC-8004 identity: another key registers (or is told how) itself.
  "POST /api/agents/me/erc8004/register": { body: () => ({}), intruder: "self" },
  // Offers: another key makes and lists its own; the owner's offer is its parties' alone.
  "POST /api/listings/{id}/offers": {
    body: () => ({ price_wei: "800000" }),
    params: () => ({ id: thirdListing }),
    intruder: "self",
  },
  "GET /api/listings/{id}/offers": { params: () => ({ id: thirdListing }), intruder: "self" },
  "GET /api/offers": { intruder: "self" },
  // Own listings: another key lists its own, never the owner's.
  "GET /api/agents/me/listings": { intruder: "self" },
  "GET /api/offers/{id}": { params: () => ({ id: ownerOffer }), intruder: "forbidden" },
  "POST /api/offers/{id}/counter": {
    body: () => ({ price_wei: "950000" }),
    params: () => ({ id: ownerOffer }),
    intruder: "forbidden",
  },
  "POST /api/offers/{id}/accept": { body: () => ({}), params: () => ({ id: ownerOffer }), intruder: "forbidden" },
  "POST /api/offers/{id}/decline": { body: () => ({}), params: () => ({ id: ownerOffer }), intruder: "forbidden" },
  "POST /api/offers/{id}/withdraw": { body: () => ({}), params: () => ({ id: ownerOffer }), intruder: "forbidden" },
  // Proposals: another key proposes and lists its own; the owner's proposal is its agent's and poster's alone.
  "POST /api/listings/{id}/proposals": {
    body: () => ({ pitch: "Me instead" }),
    params: () => ({ id: thirdBounty }),
    intruder: "self",
  },
  "GET /api/listings/{id}/proposals": { params: () => ({ id: thirdBounty }), intruder: "self" },
  "GET /api/proposals": { intruder: "self" },
  "GET /api/proposals/{id}": { params: () => ({ id: ownerProposal }), intruder: "forbidden" },
  "POST /api/proposals/{id}/accept": { params: () => ({ id: ownerProposal }), intruder: "forbidden" },
  "POST /api/proposals/{id}/decline": { params: () => ({ id: ownerProposal }), intruder: "forbidden" },
  "POST /api/proposals/{id}/withdraw": { params: () => ({ id: ownerProposal }), intruder: "forbidden" },
};

/** Routes anyone may call; a key, valid or not, changes nothing about the answer. */
const PUBLIC: Record<string, { path: () => string }> = {
  "POST /api/agents/register": { path: () => "/api/agents/register" },
  "POST /api/agents/rotate-key": { path: () => "/api/agents/rotate-key" },
  "GET /api/agents/key-challenge": { path: () => `/api/agents/key-challenge?agent_id=${owner.id}` },
  "GET /api/agents/balance": { path: () => `/api/agents/balance?address=${owner.wallet.address}` },
  "GET /api/agents": { path: () => "/api/agents" },
  "GET /api/agents/{id}": { path: () => `/api/agents/${owner.id}` },
  "GET /api/health": { path: () => "/api/health" },
  "GET /api/ready": { path: () => "/api/ready" },
  "GET /api/live": { path: () => "/api/live" },
  "GET /api/wallet/balance": { path: () => `/api/wallet/balance?agent_id=${owner.id}` },
  "POST /api/dev/faucet": { path: () => "/api/dev/faucet" },
  "GET /api/listings": { path: () => "/api/listings?limit=5" },
  "GET /api/listings/{id}": { path: () => `/api/listings/${ownerListing}` },
  // x402: the payment is the credential; without one, the same 402 to everyone.
  "GET /api/listings/{id}/x402": { path: () => `/api/listings/${thirdListing}/x402` },
  "POST /api/listings/{id}/x402": { path: () => `/api/listings/${thirdListing}/x402` },
  "GET /api/transactions": { path: () => `/api/transactions?agent_id=${owner.id}` },
  "GET /api/transactions/{id}": { path: () => "/api/transactions/6f1c2e9a-3b4d-4c5e-8f70-123456789abc" },
  "GET /api/feed": { path: () => "/api/feed?limit=5" },
  "GET /api/agents/{id}/reviews": { path: () => `/api/agents/${owner.id}/reviews` },
  // The live service's paths (aliases of ours).
  "GET /api/agents/search": { path: () => "/api/agents/search?q=owner" },
  "GET /api/transactions/{id}/review": { path: () => `/api/transactions/${ownerTransaction}/review` },
  "GET /api/stats": { path: () => "/api/stats" },
  "GET /api/stats/daily": { path: () => "/api/stats/daily?days=7" },
  "GET /api/leaderboard": { path: () => "/api/leaderboard?period=all" },
  // The dev wallet (local chain): public; it refuses other sites' pages by their Origin instead.
  "POST /api/dev/rpc": { path: () => "/api/dev/rpc" },
  "GET /api/auth/nonce": { path: () => "/api/auth/nonce" },
  "POST /api/auth/login": { path: () => "/api/auth/login" },
  "GET /api/info": { path: () => "/api/info" },
  "GET /api/agents/{id}/reputation": { path: () => `/api/agents/${owner.id}/reputation` },
  "GET /api/agents/{id}/reputation/verify": { path: () => `/api/agents/${owner.id}/reputation/verify` },
  "GET /api/agents/{id}/registration.json": { path: () => `/api/agents/${owner.id}/registration.json` },
  "GET /api/agents/{id}/erc8004": { path: () => `/api/agents/${owner.id}/erc8004` },
  "GET /api/reviews/{id}/feedback.json": {
    path: () => "/api/reviews/6f1c2e9a-3b4d-4c5e-8f70-123456789abc/feedback.json",
  },
};

interface Operation {
  route: string;
  secured: boolean;
}

/** Every operation of the served OpenAPI document. */
async function documentedOperations(): Promise<Operation[]> {
  const document = (await (await t.app.request("/api/openapi.json")).json()) as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      route: `${method.toUpperCase()} ${path}`,
      secured: (operation.security?.length ?? 0) > 0,
    })),
  );
}

/** A fingerprint of every row the API owns. */
async function snapshot(): Promise<string> {
  const { rows } = await t.db.execute<{ digest: string }>(
    sql.raw(`SELECT concat_ws('|',
      (SELECT md5(string_agg(a::text, ',' ORDER BY a.id)) FROM app.agents a),
      -- last_used_at is bookkeeping, written as keys are used
      (SELECT md5(string_agg((k.id, k.agent_id, k.key_hash, k.revoked_at)::text, ',' ORDER BY k.key_hash)) FROM app.api_keys k),
      (SELECT md5(string_agg(l::text, ',' ORDER BY l.id)) FROM app.listings l),
      (SELECT md5(string_agg(x::text, ',' ORDER BY x.id)) FROM app.transactions x),
      (SELECT md5(string_agg(m::text, ',' ORDER BY m.id)) FROM app.messages m),
      (SELECT md5(string_agg(r::text, ',' ORDER BY r.id)) FROM app.reviews r),
      (SELECT md5(string_agg(o::text, ',' ORDER BY o.id)) FROM app.offers o),
      (SELECT md5(string_agg(v::text, ',' ORDER BY v.id)) FROM app.offer_moves v),
      (SELECT md5(string_agg(p::text, ',' ORDER BY p.id)) FROM app.proposals p),
      (SELECT md5(string_agg(c::text, ',' ORDER BY c.agent_id)) FROM app.spending_limits c),
      (SELECT md5(string_agg(s::text, ',' ORDER BY s.id)) FROM app.spending_approvals s)) AS digest`),
  );
  return rows[0]?.digest ?? "";
}

/** The first event of a stream, as JSON text; the stream is closed after it. */
async function firstEvent(response: Response): Promise<string> {
  const stream = eventStreamReader(response.body as ReadableStream<Uint8Array>);
  try {
    return JSON.stringify(await stream.next());
  } finally {
    await stream.close();
  }
}

function call(route: string, spec: KeyedRoute, authorization?: string, headers: Record<string, string> = {}) {
  const [method, template] = route.split(" ") as [string, string];
  const path = Object.entries(spec.params?.() ?? {}).reduce(
    (current, [name, value]) => current.replace(`{${name}}`, value),
    template,
  );
  const body = spec.body?.();
  return t.app.request(path, {
    method,
    headers: { "content-type": "application/json", ...headers, ...(authorization !== undefined && { authorization }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

describe("the tables name every route of the OpenAPI document", () => {
  it("keyed routes are exactly those that declare security, the rest are public", async () => {
    const operations = await documentedOperations();
    expect(
      operations
        .filter((operation) => operation.secured)
        .map((operation) => operation.route)
        .sort(),
    ).toEqual(Object.keys(KEYED).sort());
    expect(
      operations
        .filter((operation) => !operation.secured)
        .map((operation) => operation.route)
        .sort(),
    ).toEqual(Object.keys(PUBLIC).sort());
  });
});

describe("keyed routes", () => {
  const credentials: [string, () => string | undefined][] = [
    ["no key", () => undefined],
    ["a key nobody holds", () => `Bearer ${randomBytes(32).toString("hex")}`],
  ];
  for (const [route, spec] of Object.entries(KEYED)) {
    for (const [label, authorization] of credentials) {
      it(`${route} with ${label}: 401, nothing changes`, async () => {
        const before = await snapshot();
        const response = await call(route, spec, authorization());
        expect(response.status).toBe(401);
        expect(await json(response)).toMatchObject({ code: "unauthorized", error: expect.any(String) });
        expect(await snapshot()).toBe(before);
      });
    }

    it(`${route} with another agent's key: ${spec.intruder}`, async () => {
      const ownerBefore = await json(await t.app.request(`/api/agents/${owner.id}`));
      const listingBefore = await json(await t.app.request(`/api/listings/${ownerListing}`));
      const before = await snapshot();
      const response = await call(route, spec, `Bearer ${intruder.key}`);
      if (spec.intruder !== "self") {
        const [status, code] = spec.intruder === "forbidden" ? [403, "forbidden"] : [401, "unauthorized"];
        expect(response.status).toBe(status);
        expect(await json(response)).toMatchObject({ code, error: expect.any(String) });
        expect(await snapshot()).toBe(before);
      } else {
        // Whatever the answer (an external intruder may not withdraw: 400), it is about the caller.
        expect([401, 403]).not.toContain(response.status);
        expect(response.status).toBeLessThan(500);
        const answer = spec.stream ? await firstEvent(response) : JSON.stringify(await json(response));
        expect(answer).not.toContain(owner.id);
        if (route.endsWith("rotate-key")) {
          // The intruder's own key was rotated; keep the new one for the next routes.
          intruder.key = JSON.parse(answer).api_key;
        }
      }
      expect(await json(await t.app.request(`/api/agents/${owner.id}`))).toEqual(ownerBefore);
      expect(await json(await t.app.request(`/api/listings/${ownerListing}`))).toEqual(listingBefore);
      expect(
        (await t.app.request("/api/agents/me", { headers: { authorization: `Bearer ${owner.key}` } })).status,
      ).toBe(200);
    });
  }
});

/**
 * Public routes answered before any credential is read: liveness answers that the process does,
 * and nothing else (no key lookup, no budget, which may ask Postgres; routes/platform/probes.ts).
 * A forged key opens nothing there either: there is nothing to open.
 */
const BEFORE_CREDENTIALS = ["GET /api/live"];

describe("public routes", () => {
  for (const [route, spec] of Object.entries(PUBLIC)) {
    if (!route.startsWith("GET ")) continue;
    it(`${route} answers the same with no key and another agent's key; a key nobody holds is 401`, async () => {
      const statuses = [];
      for (const authorization of [undefined, `Bearer ${intruder.key}`]) {
        const response = await t.app.request(spec.path(), {
          headers: authorization ? { authorization } : {},
        });
        statuses.push(response.status);
      }
      expect(statuses[0]).toBeLessThan(500);
      expect(new Set(statuses).size).toBe(1);
      // A forged key opens no budget of its own: refused at the door, public route or not.
      const forged = await t.app.request(spec.path(), { headers: { authorization: `Bearer ${"0".repeat(64)}` } });
      if (BEFORE_CREDENTIALS.includes(route)) {
        expect(forged.status).toBe(statuses[0]);
        return;
      }
      expect(forged.status).toBe(401);
      expect(await json(forged)).toMatchObject({ code: "unauthorized" });
    });
  }
});

/** A session token of the intruder's wallet (Sign-In with Ethereum): its owner, not the owner's. */
async function intruderSession(): Promise<string> {
  const response = await post(t.app, "/api/auth/login", await signIn(t.app, intruder.wallet, t.config.chainId));
  if (response.status !== 200) throw new Error(`login answered ${response.status}`);
  return (await json(response)).session_token;
}

describe("keyed routes with the other kinds of credential", () => {
  /** The session routes take the session itself (logout would end it); the arbiter's route takes its key. */
  const SESSION_ROUTES = ["POST /api/auth/logout", "GET /api/auth/session"];
  const ARBITER_ROUTES = [
    "POST /api/transactions/{id}/resolve",
    "GET /api/disputes",
    "GET /api/disputes/{transaction_id}",
  ];
  /**
   * The owner's own routes (/api/owner) take a session itself: the intruder's session on the
   * owner's agent is 403, and so is the arbiter's key (a credential, but not an owner's).
   */
  const OWNER_ROUTES = Object.keys(KEYED).filter((route) => route.includes(" /api/owner/"));
  /** The agent route whose session names its agent in the body (`{ agent_id }`, as the spec has it). */
  const BODY_AGENT_ROUTES = ["POST /api/listings/{id}/claim"];
  let session: string;
  beforeAll(async () => {
    session = await intruderSession();
  });

  const expectRefused = async (response: Response, status: number, code: string, before: string) => {
    expect(response.status).toBe(status);
    expect(await json(response)).toMatchObject({ code, error: expect.any(String) });
    expect(await snapshot()).toBe(before);
  };

  for (const [route, spec] of Object.entries(KEYED)) {
    if (SESSION_ROUTES.includes(route)) continue;
    if (OWNER_ROUTES.includes(route)) {
      if (route.includes("{id}")) {
        it(`${route} with another owner's session, on the owner's agent: 403, nothing changes`, async () => {
          const before = await snapshot();
          await expectRefused(await call(route, spec, `Bearer ${session}`), 403, "forbidden", before);
        });
      }
      it(`${route} with the arbiter's key: 403, nothing changes`, async () => {
        const before = await snapshot();
        await expectRefused(await call(route, spec, `Bearer ${ARBITER_API_KEY}`), 403, "forbidden", before);
      });
      continue;
    }
    if (ARBITER_ROUTES.includes(route)) {
      it(`${route} with a session that is not the arbiter's: 403, nothing changes`, async () => {
        const before = await snapshot();
        await expectRefused(await call(route, spec, `Bearer ${session}`), 403, "forbidden", before);
      });
      continue;
    }

    it(`${route} with another owner's session naming the owner's agent (X-Agent-Id): 403, nothing changes`, async () => {
      const before = await snapshot();
      const response = await call(route, spec, `Bearer ${session}`, { "X-Agent-Id": owner.id });
      await expectRefused(response, 403, "forbidden", before);
    });

    if (!BODY_AGENT_ROUTES.includes(route)) {
      it(`${route} with a session and no X-Agent-Id: 400, nothing changes`, async () => {
        const before = await snapshot();
        await expectRefused(await call(route, spec, `Bearer ${session}`), 400, "bad_request", before);
      });
    }

    it(`${route} with the arbiter's key: 401, nothing changes`, async () => {
      const before = await snapshot();
      await expectRefused(await call(route, spec, `Bearer ${ARBITER_API_KEY}`), 401, "unauthorized", before);
    });
  }

  it("the session still belongs to the intruder's wallet afterwards (the routes did not take it as a key)", async () => {
    const response = await t.app.request("/api/auth/session", { headers: { authorization: `Bearer ${session}` } });
    expect(response.status).toBe(200);
    expect(JSON.stringify(await json(response)).toLowerCase()).toContain(intruder.wallet.address.toLowerCase());
  });
});
