import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { agentEscrowAbi, identityRegistryAbi, mockUsdcAbi } from "@agent-marketplace/contracts";
import { type SQL, sql } from "drizzle-orm";
import { type Address, createPublicClient, createTestClient, createWalletClient, http, parseEther } from "viem";
import { hardhat } from "viem/chains";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { withoutAliases as sdkWithoutAliases } from "../../../sdk/scripts/openapi-document.ts";
import { idempotentOperationsOf, idempotentOperationsSource } from "../../../sdk/scripts/openapi-types.ts";
import { testMarket, USDC } from "../../test/escrow.ts";
import {
  ARBITER_API_KEY,
  createListing,
  get,
  json,
  newWallet,
  post,
  registerHosted,
  registerWithWallet,
  sessionOf,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../test/harness.ts";

/*
 * Every write the OpenAPI document declares idempotent (an `Idempotency-Key` header parameter),
 * walked on the suite's real stack: one body sent twice with one key answers the same bytes twice
 * (the second marked `Idempotent-Replayed: true`) and has its effect once: one row, one escrow
 * move, one balance change. Every POST of the document is classified: declared idempotent (and
 * then it has a scenario here) or listed below with the reason it is not, so a new write must be
 * placed. Hosted parties get USDC from the local faucet; external ones are fresh wallets the node
 * gives ETH, minting their own MockUSDC. No dev account sends.
 */

/** POSTs that deliberately do not honour Idempotency-Key, and why. */
const NOT_IDEMPOTENT: Record<string, string> = {
  "POST /api/agents/register": "no caller yet to key by; each call is a new agent answering its own key",
  "POST /api/agents/rotate-key":
    "proves the wallet with a signature of a single-use server nonce: no authenticated caller to key by, and the nonce cannot be replayed",
  "POST /api/agents/me/rotate-key":
    "revokes the key that sent it, so a retry cannot authenticate as the same caller; a lost answer is recovered by the owner's key issue or the signature rotation",
  "POST /api/agents/me/owner":
    "adoption happens once per agent (a repeat is 409); it creates nothing and moves nothing",
  "POST /api/agents/me/webhook/rotate-secret": "replaces the signing secret: the last answer holds the live one",
  "POST /api/agents/me/webhook/test":
    "sends a test event at once and answers what the receiver did then: each call is a new test, and it creates nothing",
  "POST /api/agents/me/webhook/deliveries/{id}/redeliver":
    "re-arms a failed delivery; repeating it re-arms the same one",
  "POST /api/auth/login": "a session from a signed single-use nonce",
  "POST /api/auth/logout": "ends a session: idempotent by nature",
  "POST /api/notifications/read": "marks notifications read: idempotent by nature",
  "POST /api/agents/{id}/webhook":
    "the live service's path of PATCH /api/agents/me {webhook_url}: sets the URL, idempotent by nature",
  "POST /api/listings/{id}/x402":
    "an x402 payment is its own idempotency key (the authorization's nonce): presented again, it is answered without paying twice",
  "POST /api/dev/faucet": "local chain only, a development helper",
  "POST /api/dev/rpc": "local chain only, the dev wallet's JSON-RPC",
};

interface OpenApiOperation {
  "x-alias-of"?: string;
  parameters?: { in: string; name: string; required?: boolean; description?: string }[];
}
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

const stack = inject("stack");
const PRICE = 2_000_000n;
let t: TestApp;
let document: OpenApiDocument;
let feeBps: bigint;
const chainClient = createPublicClient({ chain: hardhat, transport: http(stack.rpcUrl) });
const testClient = createTestClient({ chain: hardhat, mode: "hardhat", transport: http(stack.rpcUrl) });

beforeAll(async () => {
  t = await testApp();
  document = await json(await get(t.app, "/api/openapi.json"));
  const market = testMarket();
  feeBps = BigInt(
    await market.publicClient.readContract({ address: market.escrow, abi: agentEscrowAbi, functionName: "feeBps" }),
  );
});
afterAll(() => t.close());

/** "POST /api/…" of every operation of the document, with its operation object. */
function operations(): [string, OpenApiOperation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as const),
  ) as [string, OpenApiOperation][];
}

/** The document as the SDK is generated from it: without the live service's aliases. */
const withoutAliases = (of: OpenApiDocument) => sdkWithoutAliases(of);

const idempotencyHeaderOf = (operation: OpenApiOperation) =>
  operation.parameters?.find((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");

// ---- What a scenario is: a request ready to send, and the effects it must have exactly once. ----

interface Effect {
  label: string;
  read: () => Promise<bigint>;
  /** The change one run makes. */
  change: bigint;
}

interface Prepared {
  path: string;
  body?: unknown;
  /** authorization (and X-Agent-Id) of the caller. */
  headers: Record<string, string>;
  effects: Effect[];
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function count(table: string, where: SQL): Promise<bigint> {
  const { rows } = await t.db.execute<{ n: string }>(
    sql`SELECT count(*)::text AS n FROM ${sql.raw(table)} WHERE ${where}`,
  );
  return BigInt(rows[0]?.n ?? "0");
}

const rows = (label: string, table: string, where: SQL, change = 1n): Effect => ({
  label,
  read: () => count(table, where),
  change,
});

const usdcOf = (label: string, address: Address, change: bigint): Effect => ({
  label,
  read: () => usdcBalance(address),
  change,
});

/** Escrow calls sent for a marketplace transaction with this purpose (relayer and hosted wallets). */
const sends = (label: string, transactionId: string, purpose: string): Effect =>
  rows(label, "app.relayed_transactions", sql`transaction_id = ${transactionId} AND purpose = ${purpose}`);

// ---- The parties and states the scenarios start from, made without keys. ----

type Party = Awaited<ReturnType<typeof registerHosted>>;
const hosted = (name: string, usdc = 0n): Promise<Party> => registerHosted(t.app, name, usdc);

async function ok(response: Response | Promise<Response>, what: string) {
  const answer = await response;
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${await answer.text()}`);
  return json(answer);
}

/** A hosted buyer's FUNDED purchase of a new listing of a hosted seller. */
async function funded() {
  const seller = await hosted("idem seller");
  const buyer = await hosted("idem buyer", 10n * USDC);
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await ok(post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key), "buy");
  return { seller, buyer, listing, id: bought.transaction_id as string };
}

async function delivered() {
  const deal = await funded();
  await ok(
    post(t.app, `/api/transactions/${deal.id}/deliver`, { deliverable: "the work" }, deal.seller.key),
    "deliver",
  );
  return deal;
}

async function disputed() {
  const deal = await funded();
  await ok(post(t.app, `/api/transactions/${deal.id}/dispute`, { reason: "no word" }, deal.buyer.key), "dispute");
  return deal;
}

async function released() {
  const deal = await delivered();
  await ok(post(t.app, `/api/transactions/${deal.id}/release`, {}, deal.buyer.key), "release");
  return deal;
}

/** A hosted poster's funded BOUNTY. */
async function bounty(fields: Record<string, unknown> = {}) {
  const poster = await hosted("idem poster", 10n * USDC);
  const listing = await createListing(t.app, poster, {
    listing_type: "BOUNTY",
    price_wei: PRICE.toString(),
    ...fields,
  });
  return { poster, listing, transactionId: listing.funding.transaction_id as string };
}

/** An OPEN offer of a hosted buyer on a negotiable listing; the seller's turn. */
async function openOffer() {
  const seller = await hosted("idem offer seller");
  const buyer = await hosted("idem offer buyer");
  const listing = await createListing(t.app, seller, { price_wei: "5000000", is_negotiable: true });
  const made = await ok(
    post(t.app, `/api/listings/${listing.id}/offers`, { price_wei: "4000000" }, buyer.key),
    "offer",
  );
  return { seller, buyer, listing, offerId: made.offer.id as string };
}

/** A PENDING proposal on a bounty that takes them. */
async function pendingProposal() {
  const deal = await bounty({ accepts_proposals: true });
  const agent = await hosted("idem proposer");
  const made = await ok(
    post(t.app, `/api/listings/${deal.listing.id}/proposals`, { pitch: "I can do it" }, agent.key),
    "proposal",
  );
  return { ...deal, agent, proposalId: made.proposal.id as string };
}

/** A fresh owner signed in with Sign-In with Ethereum. */
async function owner() {
  const account = newWallet();
  return { account, session: await sessionOf(t.app, account, stack.deployment.chainId) };
}

/** How offer_moves records each move. */
/** A withdrawal a hosted agent of a signed-in owner asked for, waiting for the owner's approval. */
async function pendingWithdrawal() {
  const { session } = await owner();
  const created = await ok(
    t.app.request("/api/owner/agents", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(session) },
      body: JSON.stringify({ name: "idem capped agent" }),
    }),
    "owner's agent",
  );
  const agent = created.agent.id as string;
  await ok(
    post(t.app, "/api/dev/faucet", { address: created.agent.wallet_address, usdc_wei: (5n * USDC).toString() }),
    "faucet",
  );
  await ok(
    t.app.request(`/api/owner/agents/${agent}/limits`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...bearer(session) },
      body: JSON.stringify({ per_purchase_wei: null, per_day_wei: null, approval_above_wei: "0" }),
    }),
    "limits",
  );
  const destination = newWallet().address;
  const asked = await ok(
    post(
      t.app,
      "/api/wallet/withdraw",
      { destination_address: destination, amount_wei: USDC.toString() },
      created.api_key,
    ),
    "withdraw",
  );
  return { session, destination, agent, approvalId: asked.approval.id as string };
}

const RECORDED = { counter: "countered", accept: "accepted", decline: "declined", withdraw: "withdrawn" } as const;

const offerMove = (move: "counter" | "accept" | "decline" | "withdraw") => async (): Promise<Prepared> => {
  const { seller, buyer, offerId } = await openOffer();
  // The seller counters first where the move is the buyer's (accept of a counter, withdraw works on any).
  if (move === "accept") {
    await ok(post(t.app, `/api/offers/${offerId}/counter`, { price_wei: "4500000" }, seller.key), "counter");
  }
  const mover = move === "accept" || move === "withdraw" ? buyer : seller;
  return {
    path: `/api/offers/${offerId}/${move}`,
    body: move === "counter" ? { price_wei: "4600000", message: "meet me" } : { message: "ok" },
    headers: bearer(mover.key),
    effects: [
      rows(`one ${move} of the offer`, "app.offer_moves", sql`offer_id = ${offerId} AND action = ${RECORDED[move]}`),
    ],
  };
};

/** The scenario of every operation declared idempotent, by method and OpenAPI path. */
/** A direct message sent to `path`: one row. */
async function directMessage(path: string): Promise<Prepared> {
  const from = await hosted("idem sender");
  const to = await hosted("idem recipient");
  return {
    path,
    body: { to_agent_id: to.id, content: "Hello once" },
    headers: bearer(from.key),
    effects: [rows("one message", "app.messages", sql`sender_agent_id = ${from.id}`)],
  };
}

const SCENARIOS: Record<string, () => Promise<Prepared>> = {
  "POST /api/listings": async () => {
    // A BOUNTY: the listing and its funded escrow (the write that once paid twice).
    const poster = await hosted("idem bounty poster", 10n * USDC);
    return {
      path: "/api/listings",
      body: {
        agent_id: poster.id,
        title: "Idempotent bounty",
        description: "Pays once",
        price_wei: PRICE.toString(),
        listing_type: "BOUNTY",
      },
      headers: bearer(poster.key),
      effects: [
        rows("one listing", "app.listings", sql`agent_id = ${poster.id}`),
        usdcOf("the reward paid into escrow once", poster.wallet, -PRICE),
      ],
    };
  },
  "POST /api/listings/{id}/buy": async () => {
    const seller = await hosted("idem seller");
    const buyer = await hosted("idem buyer", 10n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    return {
      path: `/api/listings/${listing.id}/buy`,
      body: {},
      headers: bearer(buyer.key),
      effects: [
        rows("one transaction", "app.transactions", sql`buyer_agent_id = ${buyer.id}`),
        usdcOf("the price paid once", buyer.wallet, -PRICE),
      ],
    };
  },
  "POST /api/listings/{id}/claim": async () => {
    const { listing, transactionId } = await bounty();
    const claimant = await hosted("idem claimant");
    return {
      path: `/api/listings/${listing.id}/claim`,
      body: {},
      headers: bearer(claimant.key),
      effects: [sends("one assignment on chain", transactionId, "claim")],
    };
  },
  "POST /api/listings/{id}/offers": async () => {
    const seller = await hosted("idem offer seller");
    const buyer = await hosted("idem offer buyer");
    const listing = await createListing(t.app, seller, { price_wei: "5000000", is_negotiable: true });
    return {
      path: `/api/listings/${listing.id}/offers`,
      body: { price_wei: "4000000", message: "would you?" },
      headers: bearer(buyer.key),
      effects: [rows("one offer", "app.offers", sql`buyer_agent_id = ${buyer.id}`)],
    };
  },
  "POST /api/listings/{id}/proposals": async () => {
    const { listing } = await bounty({ accepts_proposals: true });
    const agent = await hosted("idem proposer");
    return {
      path: `/api/listings/${listing.id}/proposals`,
      body: { pitch: "I can do it", eta_hours: 12 },
      headers: bearer(agent.key),
      effects: [rows("one proposal", "app.proposals", sql`agent_id = ${agent.id}`)],
    };
  },
  "POST /api/transactions": async () => {
    const seller = await hosted("idem direct seller");
    const buyer = await hosted("idem direct buyer", 10n * USDC);
    return {
      path: "/api/transactions",
      body: { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: PRICE.toString() },
      headers: bearer(buyer.key),
      effects: [
        rows("one transaction", "app.transactions", sql`buyer_agent_id = ${buyer.id}`),
        usdcOf("the amount paid once", buyer.wallet, -PRICE),
      ],
    };
  },
  "POST /api/transactions/{id}/confirm": async () => {
    // An external buyer's gasless funding: the relayer submits its EIP-3009 authorization.
    const account = newWallet();
    await testClient.setBalance({ address: account.address, value: parseEther("1") });
    const wallet = createWalletClient({
      account,
      chain: { ...hardhat, id: stack.deployment.chainId },
      transport: http(stack.rpcUrl),
    });
    const minted = await wallet.writeContract({
      address: stack.deployment.contracts.USDC.address,
      abi: mockUsdcAbi,
      functionName: "mint",
      args: [account.address, 10n * USDC],
    });
    await chainClient.waitForTransactionReceipt({ hash: minted });
    const buyer = await registerWithWallet(t.app, "idem external buyer", account.address);
    const seller = await hosted("idem external seller");
    const created = await ok(
      post(
        t.app,
        "/api/transactions",
        { buyer_agent_id: buyer.id, seller_agent_id: seller.id, amount_wei: PRICE.toString() },
        buyer.key,
      ),
      "direct transaction",
    );
    const typed = created.instructions.gasless.typed_data;
    const signature = await account.signTypedData({
      ...typed,
      message: {
        ...typed.message,
        value: BigInt(typed.message.value),
        validAfter: BigInt(typed.message.validAfter),
        validBefore: BigInt(typed.message.validBefore),
      },
    });
    return {
      path: `/api/transactions/${created.transaction_id}/confirm`,
      body: { authorization: { signature, valid_after: "0", valid_before: typed.message.validBefore } },
      headers: bearer(buyer.key),
      effects: [usdcOf("the amount paid once", account.address, -PRICE)],
    };
  },
  "POST /api/transactions/{id}/deliver": async () => {
    const { seller, id } = await funded();
    return {
      path: `/api/transactions/${id}/deliver`,
      body: { deliverable: "The report" },
      headers: bearer(seller.key),
      effects: [rows("one deliverable", "app.deliverables", sql`transaction_id = ${id}`)],
    };
  },
  "POST /api/transactions/{id}/release": async () => {
    const { seller, buyer, id } = await delivered();
    const fee = (PRICE * feeBps) / 10_000n;
    return {
      path: `/api/transactions/${id}/release`,
      body: {},
      headers: bearer(buyer.key),
      effects: [usdcOf("the seller paid once", seller.wallet, PRICE - fee)],
    };
  },
  "POST /api/transactions/{id}/refund": async () => {
    const { seller, buyer, id } = await funded();
    return {
      path: `/api/transactions/${id}/refund`,
      body: {},
      headers: bearer(seller.key),
      effects: [usdcOf("the buyer refunded once", buyer.wallet, PRICE)],
    };
  },
  "POST /api/transactions/{id}/dispute": async () => {
    const { buyer, id } = await funded();
    return {
      path: `/api/transactions/${id}/dispute`,
      body: { reason: "Nothing delivered" },
      headers: bearer(buyer.key),
      effects: [rows("one dispute", "app.disputes", sql`transaction_id = ${id}`)],
    };
  },
  "POST /api/transactions/{id}/evidence": async () => {
    const { buyer, id } = await disputed();
    return {
      path: `/api/transactions/${id}/evidence`,
      body: { content: "The chat log", url: "https://example.com/log" },
      headers: bearer(buyer.key),
      effects: [rows("one evidence item", "app.evidence", sql`transaction_id = ${id}`)],
    };
  },
  "POST /api/transactions/{id}/resolve": async () => {
    const { buyer, id } = await disputed();
    return {
      path: `/api/transactions/${id}/resolve`,
      body: { seller_bps: 0, note: "Refunded in full" },
      headers: bearer(ARBITER_API_KEY),
      effects: [usdcOf("the buyer refunded once", buyer.wallet, PRICE)],
    };
  },
  "POST /api/transactions/{id}/review": async () => {
    const { buyer, id } = await released();
    return {
      path: `/api/transactions/${id}/review`,
      body: { rating: 5, comment: "Great" },
      headers: bearer(buyer.key),
      effects: [rows("one review", "app.reviews", sql`transaction_id = ${id}`)],
    };
  },
  "POST /api/wallet/withdraw": async () => {
    const agent = await hosted("idem withdrawer", 5n * USDC);
    const destination = newWallet().address;
    return {
      path: "/api/wallet/withdraw",
      body: { destination_address: destination, amount_wei: USDC.toString() },
      headers: bearer(agent.key),
      effects: [
        rows("one withdrawal", "app.withdrawals", sql`agent_id = ${agent.id}`),
        usdcOf("sent once", destination, USDC),
      ],
    };
  },
  "POST /api/wallet/x402-payments": async () => {
    const seller = await hosted("idem x402 seller");
    const agent = await hosted("idem x402 payer", 5n * USDC);
    const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
    const required = (await t.app.request(`/api/listings/${listing.id}/x402`)).headers.get("payment-required");
    return {
      path: "/api/wallet/x402-payments",
      body: { payment_required: required },
      headers: bearer(agent.key),
      // One payment signed, counted and reserved, however often the request is sent.
      effects: [
        rows("one payment counted", "app.agent_spends", sql`agent_id = ${agent.id} AND action = 'x402'`),
        rows("one reservation", "app.balance_reservations", sql`wallet_address = ${agent.wallet}`),
      ],
    };
  },
  "POST /api/messages/send": () => directMessage("/api/messages/send"),
  // The live service's path of it (an alias: ours' guards, the Idempotency-Key too).
  "POST /api/messages": () => directMessage("/api/messages"),
  "POST /api/feed": async () => {
    const agent = await hosted("idem poster of the feed");
    return {
      path: "/api/feed",
      body: { content: "Posted once" },
      headers: bearer(agent.key),
      // A post is a message to nobody.
      effects: [rows("one post", "app.messages", sql`sender_agent_id = ${agent.id} AND recipient_agent_id IS NULL`)],
    };
  },
  "POST /api/offers/{id}/counter": offerMove("counter"),
  "POST /api/offers/{id}/accept": offerMove("accept"),
  "POST /api/offers/{id}/decline": offerMove("decline"),
  "POST /api/offers/{id}/withdraw": offerMove("withdraw"),
  "POST /api/proposals/{id}/accept": async () => {
    const { poster, proposalId, transactionId } = await pendingProposal();
    return {
      path: `/api/proposals/${proposalId}/accept`,
      headers: bearer(poster.key),
      effects: [sends("one assignment on chain", transactionId, "claim")],
    };
  },
  "POST /api/proposals/{id}/decline": async () => {
    const { poster, agent, proposalId } = await pendingProposal();
    return {
      path: `/api/proposals/${proposalId}/decline`,
      headers: bearer(poster.key),
      effects: [rows("the proposer told once", "app.notifications", sql`agent_id = ${agent.id}`)],
    };
  },
  "POST /api/proposals/{id}/withdraw": async () => {
    const { poster, agent, proposalId } = await pendingProposal();
    return {
      path: `/api/proposals/${proposalId}/withdraw`,
      headers: bearer(agent.key),
      effects: [rows("the poster told once", "app.notifications", sql`agent_id = ${poster.id}`)],
    };
  },
  "POST /api/owner/agents": async () => {
    const { account, session } = await owner();
    return {
      path: "/api/owner/agents",
      body: { name: "idem owned agent", bio: "registered once" },
      headers: bearer(session),
      effects: [rows("one agent", "app.agents", sql`owner_address = ${account.address.toLowerCase()}`)],
    };
  },
  "POST /api/owner/agents/{id}/keys": async () => {
    const { session } = await owner();
    const created = await ok(
      t.app.request("/api/owner/agents", {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(session) },
        body: JSON.stringify({ name: "idem keyed agent" }),
      }),
      "owner's agent",
    );
    const agentId = created.agent.id as string;
    return {
      path: `/api/owner/agents/${agentId}/keys`,
      body: {},
      headers: bearer(session),
      effects: [rows("one key", "app.api_keys", sql`agent_id = ${agentId}`)],
    };
  },
  "POST /api/owner/approvals/{id}/approve": async () => {
    const { session, destination, agent, approvalId } = await pendingWithdrawal();
    return {
      path: `/api/owner/approvals/${approvalId}/approve`,
      headers: bearer(session),
      effects: [
        rows("one withdrawal", "app.withdrawals", sql`agent_id = ${agent}`),
        usdcOf("sent once", destination, USDC),
      ],
    };
  },
  "POST /api/owner/approvals/{id}/decline": async () => {
    const { session, agent, approvalId } = await pendingWithdrawal();
    return {
      path: `/api/owner/approvals/${approvalId}/decline`,
      headers: bearer(session),
      effects: [
        rows("the agent told once", "app.notifications", sql`agent_id = ${agent} AND kind = 'approval.declined'`),
      ],
    };
  },
  "POST /api/agents/me/erc8004/register": async () => {
    const agent = await hosted("idem identity");
    return {
      path: "/api/agents/me/erc8004/register",
      body: {},
      headers: bearer(agent.key),
      effects: [
        {
          label: "one identity on chain",
          read: () =>
            chainClient.readContract({
              address: t.services.erc8004.identityRegistry,
              abi: identityRegistryAbi,
              functionName: "balanceOf",
              args: [agent.wallet],
            }),
          change: 1n,
        },
      ],
    };
  },
};

function send(request: Prepared, key: string) {
  return t.app.request(request.path, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key, ...request.headers },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
}

describe("the idempotent writes, as the OpenAPI document declares them", () => {
  it("every POST is declared idempotent (with a scenario here) or listed as deliberately not", () => {
    const posts = operations().filter(([operation]) => operation.startsWith("POST "));
    const declared = posts.filter(([, operation]) => idempotencyHeaderOf(operation)).map(([name]) => name);
    const undeclared = posts.filter(([, operation]) => !idempotencyHeaderOf(operation)).map(([name]) => name);
    expect(declared.sort(), "declared idempotent ⇔ has a scenario").toEqual(Object.keys(SCENARIOS).sort());
    expect(undeclared.sort(), "not declared ⇔ listed with its reason").toEqual(Object.keys(NOT_IDEMPOTENT).sort());
  });

  it("declares the header optional and described, on POSTs only", () => {
    for (const [name, operation] of operations()) {
      const header = idempotencyHeaderOf(operation);
      if (!header) continue;
      expect(name, "only writes that create or pay").toMatch(/^POST /);
      expect(header, name).toMatchObject({ name: "Idempotency-Key", required: false });
      expect(header.description, name).toEqual(expect.stringContaining("Idempotent-Replayed"));
    }
  });

  it("/skill.md lists exactly the declared writes", async () => {
    const skill = await (await get(t.app, "/skill.md")).text();
    const listed = [...skill.matchAll(/^- `(POST \/api\/[^`]+)`$/gm)].map(([, operation]) => operation);
    expect(listed.sort()).toEqual(Object.keys(SCENARIOS).sort());
  });

  it("the SDK's committed idempotent-operations.ts is what this document generates (without its aliases)", async () => {
    const committed = readFileSync(new URL("../../../sdk/src/idempotent-operations.ts", import.meta.url), "utf8");
    const ours = withoutAliases(document);
    expect(await idempotentOperationsSource(ours)).toBe(committed);
    expect(idempotentOperationsOf(ours)).toEqual(
      Object.keys(SCENARIOS)
        .filter((operation) => operation !== "POST /api/messages")
        .sort(),
    );
  });
});

describe("one key, one body, sent twice: the same answer, one effect", () => {
  for (const [operation, prepare] of Object.entries(SCENARIOS)) {
    it(operation, async () => {
      const [, path] = operation.split(" ");
      expect(idempotencyHeaderOf(document.paths[path as string]?.post ?? {}), "declared in the document").toBeDefined();
      const request = await prepare();
      const before = await Promise.all(request.effects.map((effect) => effect.read()));
      const key = randomUUID();

      const first = await send(request, key);
      const answer = await first.text();
      expect(first.status, answer).toBeGreaterThanOrEqual(200);
      expect(first.status, answer).toBeLessThan(300);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      const retry = await send(request, key);
      expect(retry.status, "the same status").toBe(first.status);
      expect(retry.headers.get("idempotent-replayed"), "marked replayed").toBe("true");
      expect(await retry.text(), "the same answer").toBe(answer);

      const after = await Promise.all(request.effects.map((effect) => effect.read()));
      request.effects.forEach((effect, i) => {
        expect((after[i] as bigint) - (before[i] as bigint), effect.label).toBe(effect.change);
      });
    });
  }
});
