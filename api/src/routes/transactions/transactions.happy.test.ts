import { escrowIdOfTransaction } from "@agent-marketplace/contracts";
import { sql } from "drizzle-orm";
import { keccak256, type TransactionReceipt, toHex, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DAY,
  type FundedEscrow,
  fundAccounts,
  fundEscrow,
  indexed,
  insertTransaction,
  insertTransactions,
  type Market,
  testMarket,
  USDC,
} from "../../../test/escrow.ts";
import {
  get,
  json,
  newWallet,
  post,
  registerAgent,
  registerWithWallet,
  sessionOf,
  type TestApp,
  testApp,
} from "../../../test/harness.ts";
import { listings } from "../../db/schema.ts";
import {
  newestTransactionsJson,
  toTransaction,
  transactionFactsFromJson,
} from "../../domain/transactions/transactions.ts";

/*
 * Transactions on the real stack: rows in app.transactions (as the money-flow routes will write
 * them) and escrows driven on chain under the same uuids. This file sends from dev accounts
 * #12..#14 only (and #1, the arbiter, for rulings); other files must not send from them.
 */

const BUYER = 12;
const SELLER = 13;
const OTHER = 14;

let t: TestApp;
let market: Market;
const agent = { a: "", b: "", c: "" };
const names = { a: "", b: "", c: "" };
let keyOfA = "";

/** One scenario: its transaction id and the receipts of the steps it went through. */
interface Scenario {
  id: string;
  amount: bigint;
  escrow?: FundedEscrow;
  steps: Record<string, TransactionReceipt>;
}
const s: Record<string, Scenario> = {};

async function blockTime(receipt: TransactionReceipt): Promise<string> {
  const block = await market.publicClient.getBlock({ blockNumber: receipt.blockNumber });
  return new Date(Number(block.timestamp) * 1000).toISOString();
}

/** A BOUNTY listing of `posterId` for `amount`, as its row in app.listings. */
async function bountyListing(posterId: string, amount: bigint): Promise<string> {
  const [row] = await t.db
    .insert(listings)
    .values({
      agentId: posterId,
      title: "a bounty",
      description: "a task",
      category: "other",
      listingType: "BOUNTY",
      priceWei: amount.toString(),
    })
    .returning({ id: listings.id });
  return (row as { id: string }).id;
}

/** A row A→B (or as given) and, unless `pending`, its escrow funded by the buyer. */
async function scenario(
  key: string,
  amount: bigint,
  options: { buyer?: [string, number]; seller?: [string | null, number | null]; pending?: boolean } = {},
): Promise<Scenario> {
  const [buyerId, buyerIndex] = options.buyer ?? [agent.a, BUYER];
  const [sellerId, sellerIndex] = options.seller ?? [agent.b, SELLER];
  // The escrow's terms are the row's (escrow-match.ts): the chain's deadline, a bounty's listing.
  const deadline = new Date(((await market.now()) + 7 * DAY) * 1000);
  const listingId = sellerId === null ? await bountyListing(buyerId, amount) : undefined;
  const id = await insertTransaction(t.db, {
    buyer: buyerId,
    seller: sellerId,
    amountWei: amount,
    description: key,
    deadline,
    listingId,
  });
  const entry: Scenario = { id, amount, steps: {} };
  if (!options.pending) {
    const sellerAddress = sellerIndex === null ? zeroAddress : market.address(sellerIndex);
    const funded = await fundEscrow(market, buyerIndex, id, sellerAddress, amount, { deadline });
    entry.escrow = funded;
    entry.steps.fund = funded.receipt;
  }
  s[key] = entry;
  return entry;
}

function sc(key: string): Scenario {
  const entry = s[key];
  if (!entry) throw new Error(`no scenario ${key}`);
  return entry;
}

function step(key: string, name: string): TransactionReceipt {
  const receipt = sc(key).steps[name];
  if (!receipt) throw new Error(`${key} has no step ${name}`);
  return receipt;
}

function escrowOf(key: string): FundedEscrow {
  const escrow = s[key]?.escrow;
  if (!escrow) throw new Error(`${key} has no escrow`);
  return escrow;
}

async function detail(key: string) {
  const response = await get(t.app, `/api/transactions/${sc(key).id}`);
  expect(response.status).toBe(200);
  return json(response);
}

/** Every page of a list query, following next_cursor. */
interface Item {
  id: string;
  state: string;
  created_at: string;
}

async function allPages(query: string): Promise<{ pages: number; items: Item[] }> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await get(t.app, `/api/transactions?${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(response.status).toBe(200);
    const body = await json(response);
    items.push(...body.transactions);
    cursor = body.next_cursor;
    pages += 1;
  } while (cursor);
  return { pages, items };
}

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  const tag = Math.random().toString(36).slice(2, 8);
  names.a = `tx-buyer-${tag}`;
  names.b = `tx-seller-${tag}`;
  names.c = `tx-other-${tag}`;
  const registeredA = await registerWithWallet(t.app, names.a, market.address(BUYER));
  agent.a = registeredA.id;
  keyOfA = registeredA.key;
  agent.b = (await registerWithWallet(t.app, names.b, market.address(SELLER))).id;
  agent.c = (await registerWithWallet(t.app, names.c, market.address(OTHER))).id;
  await fundAccounts(market, [BUYER, SELLER, OTHER], 1_000n * USDC);

  await scenario("pending", 1n * USDC, { pending: true });
  await scenario("funded", 2n * USDC);

  await scenario("delivered", 3n * USDC);
  sc("delivered").steps.deliver = await market.deliver(SELLER, escrowOf("delivered"), "the report");

  await scenario("released", 4n * USDC);
  sc("released").steps.deliver = await market.deliver(SELLER, escrowOf("released"));
  sc("released").steps.release = await market.release(BUYER, escrowOf("released"));

  await scenario("refunded", 5n * USDC);
  sc("refunded").steps.refund = await market.refund(BUYER, escrowOf("refunded"));

  await scenario("disputed", 6n * USDC);
  sc("disputed").steps.deliver = await market.deliver(SELLER, escrowOf("disputed"));
  sc("disputed").steps.dispute = await market.dispute(BUYER, escrowOf("disputed"));

  // Disputed by the seller before delivery, ruled 70 % to the seller: RELEASED.
  await scenario("ruledForSeller", 10n * USDC);
  sc("ruledForSeller").steps.dispute = await market.dispute(SELLER, escrowOf("ruledForSeller"));
  sc("ruledForSeller").steps.resolve = await market.resolve(escrowOf("ruledForSeller"), 7_000);

  // Disputed by the buyer after delivery, ruled wholly to the buyer: REFUNDED.
  await scenario("ruledForBuyer", 8n * USDC);
  sc("ruledForBuyer").steps.deliver = await market.deliver(SELLER, escrowOf("ruledForBuyer"));
  sc("ruledForBuyer").steps.dispute = await market.dispute(BUYER, escrowOf("ruledForBuyer"));
  sc("ruledForBuyer").steps.resolve = await market.resolve(escrowOf("ruledForBuyer"), 0);

  // An unclaimed bounty: no seller in the row, the zero address on chain.
  await scenario("bounty", 7n * USDC, { seller: [null, null] });

  // Someone else (C) funds an escrow under A's transaction id: it is not A's escrow.
  const squatted = await scenario("squatted", 9n * USDC, { pending: true });
  squatted.steps.squat = (await fundEscrow(market, OTHER, squatted.id, market.address(SELLER), 1n)).receipt;

  // C as buyer (on chain) and C as seller (pending).
  await scenario("cBuys", 11n * USDC, { buyer: [agent.c, OTHER] });
  await scenario("cSells", 12n * USDC, { seller: [agent.c, OTHER], pending: true });

  await indexed(t.db, await market.publicClient.getBlock().then((block) => ({ blockNumber: block.number })));
});
afterAll(() => t.close());

describe("GET /api/transactions/{id}", () => {
  it("answers a transaction without escrow as PENDING, in the full shape", async () => {
    const body = await detail("pending");
    const id = sc("pending").id;
    expect(body).toEqual({
      id,
      listing_id: null,
      amount_wei: "1000000",
      currency: "USDC",
      description: "pending",
      state: "PENDING",
      deadline: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      buyer: { id: agent.a, name: names.a },
      seller: { id: agent.b, name: names.b },
      escrow_id: id,
      escrow_id_bytes32: escrowIdOfTransaction(market.address(BUYER), id),
      contract_address: market.escrow,
      chain_id: market.chainId,
      delivered_at: null,
      auto_release_at: null,
      deliverable_hash: null,
      dispute_window_hours: 24,
      dispute: null,
      resolution: null,
      funding_tx_hash: null,
      release_tx_hash: null,
      tx_hash: null,
      fee_bps: null,
      fee_wei: null,
      seller_receives_wei: null,
    });
  });

  it("answers a funded escrow as FUNDED with its funding transaction and on-chain deadline", async () => {
    const body = await detail("funded");
    const fund = step("funded", "fund").transactionHash;
    expect(body).toMatchObject({
      state: "FUNDED",
      amount_wei: "2000000",
      deadline: new Date(escrowOf("funded").terms.deadline * 1000).toISOString(),
      funding_tx_hash: fund,
      tx_hash: fund,
      release_tx_hash: null,
      delivered_at: null,
      dispute: null,
      resolution: null,
    });
  });

  it("answers a delivered escrow as DELIVERED with delivered_at and the deliverable hash", async () => {
    const body = await detail("delivered");
    expect(body).toMatchObject({
      state: "DELIVERED",
      delivered_at: await blockTime(step("delivered", "deliver")),
      deliverable_hash: keccak256(toHex("the report")),
      funding_tx_hash: step("delivered", "fund").transactionHash,
      tx_hash: step("delivered", "deliver").transactionHash,
      release_tx_hash: null,
    });
  });

  it("answers a released escrow as RELEASED with the release transaction", async () => {
    const release = step("released", "release").transactionHash;
    expect(await detail("released")).toMatchObject({
      state: "RELEASED",
      release_tx_hash: release,
      tx_hash: release,
      resolution: null,
    });
  });

  it("answers a refunded escrow as REFUNDED", async () => {
    expect(await detail("refunded")).toMatchObject({
      state: "REFUNDED",
      release_tx_hash: null,
      tx_hash: step("refunded", "refund").transactionHash,
      delivered_at: null,
    });
  });

  it("answers a disputed escrow as DISPUTED with who raised it and when", async () => {
    const dispute = step("disputed", "dispute");
    expect(await detail("disputed")).toMatchObject({
      state: "DISPUTED",
      dispute: { raised_by: "buyer", reason: null, raised_at: await blockTime(dispute) },
      tx_hash: dispute.transactionHash,
      resolution: null,
    });
  });

  it("answers a ruling with a share for the seller as RELEASED, with the split", async () => {
    const body = await detail("ruledForSeller");
    const resolve = step("ruledForSeller", "resolve").transactionHash;
    expect(body).toMatchObject({
      state: "RELEASED",
      dispute: { raised_by: "seller", reason: null },
      resolution: { seller_bps: 7_000, buyer_refunded_wei: (3n * USDC).toString() },
      release_tx_hash: resolve,
      tx_hash: resolve,
    });
    const { seller_received_wei, buyer_refunded_wei, fee_wei } = body.resolution;
    expect(BigInt(seller_received_wei) + BigInt(fee_wei)).toBe(7n * USDC);
    expect(BigInt(seller_received_wei) + BigInt(fee_wei) + BigInt(buyer_refunded_wei)).toBe(
      sc("ruledForSeller").amount,
    );
  });

  it("answers a ruling wholly for the buyer as REFUNDED", async () => {
    expect(await detail("ruledForBuyer")).toMatchObject({
      state: "REFUNDED",
      dispute: { raised_by: "buyer" },
      resolution: { seller_bps: 0, seller_received_wei: "0", buyer_refunded_wei: "8000000", fee_wei: "0" },
      release_tx_hash: null,
      tx_hash: step("ruledForBuyer", "resolve").transactionHash,
    });
  });

  it("names the escrow's fee and what the seller receives: if released while open, what was paid once settled", async () => {
    const feeBps = escrowOf("funded").terms.feeBps;
    const feeOf = (amount: bigint) => (amount * BigInt(feeBps)) / 10_000n;
    // Open: what a release of the whole amount would pay, at the fee the escrow was funded with.
    for (const key of ["funded", "delivered", "disputed"]) {
      const amount = sc(key).amount;
      expect(await detail(key), key).toMatchObject({
        fee_bps: feeBps,
        fee_wei: feeOf(amount).toString(),
        seller_receives_wei: (amount - feeOf(amount)).toString(),
      });
    }
    // Settled: what the contract paid.
    const released = sc("released").amount;
    expect(await detail("released")).toMatchObject({
      fee_bps: feeBps,
      fee_wei: feeOf(released).toString(),
      seller_receives_wei: (released - feeOf(released)).toString(),
    });
    expect(await detail("refunded")).toMatchObject({ fee_bps: feeBps, fee_wei: "0", seller_receives_wei: "0" });
    const ruled = await detail("ruledForSeller");
    expect(ruled).toMatchObject({
      fee_bps: feeBps,
      fee_wei: ruled.resolution.fee_wei,
      seller_receives_wei: ruled.resolution.seller_received_wei,
    });
    expect(await detail("ruledForBuyer")).toMatchObject({ fee_wei: "0", seller_receives_wei: "0" });
  });

  it("answers an unclaimed bounty with seller null", async () => {
    expect(await detail("bounty")).toMatchObject({ state: "FUNDED", seller: null, buyer: { id: agent.a } });
  });

  it("ignores an escrow funded under the transaction's id by someone other than the buyer", async () => {
    expect(await detail("squatted")).toMatchObject({ state: "PENDING", funding_tx_hash: null, tx_hash: null });
  });
});

describe("GET /api/transactions", () => {
  const expectedStateOfA: Record<string, string[]> = {
    PENDING: ["pending", "squatted", "cSells"],
    FUNDED: ["funded", "bounty"],
    DELIVERED: ["delivered"],
    RELEASED: ["released", "ruledForSeller"],
    REFUNDED: ["refunded", "ruledForBuyer"],
    DISPUTED: ["disputed"],
  };

  it("filters by state in SQL, ruling outcomes included", async () => {
    for (const [state, keys] of Object.entries(expectedStateOfA)) {
      const { items } = await allPages(`agent_id=${agent.a}&state=${state}&limit=100`);
      expect(items.map((item) => item.id).sort(), state).toEqual(keys.map((key) => s[key]?.id).sort());
      expect(items.every((item) => item.state === state)).toBe(true);
    }
  });

  it("filters by state across all agents, one small page at a time", async () => {
    const { items, pages } = await allPages("state=RELEASED&limit=1");
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(items.every((item) => item.state === "RELEASED")).toBe(true);
    expect(items.map((item) => item.id)).toEqual(expect.arrayContaining([sc("released").id, sc("ruledForSeller").id]));
  });

  it("filters by agent on both sides: as buyer and as seller", async () => {
    const response = await get(t.app, `/api/transactions?agent_id=${agent.c}`);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.next_cursor).toBeNull();
    const byId = new Map(body.transactions.map((item: { id: string }) => [item.id, item]));
    expect([...byId.keys()].sort()).toEqual([sc("cBuys").id, sc("cSells").id].sort());
    expect(byId.get(sc("cBuys").id)).toMatchObject({ state: "FUNDED", buyer: { id: agent.c, name: names.c } });
    expect(byId.get(sc("cSells").id)).toMatchObject({ state: "PENDING", seller: { id: agent.c, name: names.c } });
  });

  it("answers the same shape in the list as by id", async () => {
    const { items } = await allPages(`agent_id=${agent.a}&limit=100`);
    const listed = items.find((item) => item.id === sc("ruledForSeller").id);
    expect(listed).toEqual(await detail("ruledForSeller"));
  });

  it("pages newest first with no duplicate and no gap, also within one timestamp", async () => {
    const buyer = await registerAgent(t.app, "pager");
    // Four rows a second apart, then five created by one statement: the same microsecond.
    const base = Date.now() - 60_000;
    const ids = await insertTransactions(
      t.db,
      [0, 1, 2, 3].map((i) => ({
        buyer: buyer.id,
        seller: agent.b,
        amountWei: 1n,
        createdAt: new Date(base + i * 1000),
      })),
    );
    ids.push(...(await insertTransactions(t.db, Array(5).fill({ buyer: buyer.id, seller: agent.b, amountWei: 1n }))));
    const { items, pages } = await allPages(`agent_id=${buyer.id}&limit=2`);
    expect(pages).toBe(5);
    const seen = items.map((item) => item.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...ids].sort());
    // Newest first; ties on created_at by id, descending.
    const order = items.map((item) => `${item.created_at} ${item.id}`);
    expect(order).toEqual([...order].sort().reverse());
    const filtered = await allPages(`agent_id=${buyer.id}&state=PENDING&limit=4`);
    expect(filtered.items.map((item) => item.id)).toEqual(seen);
  });
});
describe("GET /api/transactions?owner=", () => {
  /** The ids a request lists (200), every page. */
  async function idsOf(query: string, credential?: string): Promise<string[]> {
    const response = await get(t.app, `/api/transactions?${query}&limit=100`, credential);
    expect(response.status, query).toBe(200);
    return (await json(response)).transactions.map((item: { id: string }) => item.id);
  }

  it("lists an owner's agents' transactions to its session, an agent's own to its key, nothing to others", async () => {
    const owner = newWallet();
    const session = await sessionOf(t.app, owner, t.config.chainId);
    const owned: { id: string; key: string }[] = [];
    for (const name of ["owned one", "owned two"]) {
      const response = await post(t.app, "/api/owner/agents", { name }, session);
      expect(response.status).toBe(201);
      const body = await json(response);
      owned.push({ id: body.agent.id, key: body.api_key });
    }
    const [one, two] = owned as [{ id: string; key: string }, { id: string; key: string }];
    const stranger = await registerAgent(t.app, "stranger");
    const [oneBuys, twoSells, theirs] = await insertTransactions(t.db, [
      { buyer: one.id, seller: stranger.id, amountWei: 1n },
      { buyer: stranger.id, seller: two.id, amountWei: 2n },
      { buyer: stranger.id, seller: agent.b, amountWei: 3n },
    ]);
    const address = owner.address;
    // The owner's session (Bearer, no X-Agent-Id): every agent it owns, any case of the address.
    expect((await idsOf(`owner=${address}`, session)).sort()).toEqual([oneBuys, twoSells].sort());
    expect((await idsOf(`owner=${address.toLowerCase()}`, session)).sort()).toEqual([oneBuys, twoSells].sort());
    expect(await idsOf(`owner=${address}&agent_id=${two.id}`, session)).toEqual([twoSells]);
    // An agent's key: its own transactions only, never its sibling's.
    expect(await idsOf(`owner=${address}`, one.key)).toEqual([oneBuys]);
    expect(await idsOf(`owner=${address}`, two.key)).toEqual([twoSells]);
    expect(await idsOf(`owner=${address}&agent_id=${two.id}`, one.key)).toEqual([]);
    // An external agent is owned by its own wallet.
    expect((await idsOf(`owner=${stranger.wallet.address}`, stranger.key)).sort()).toEqual(
      [oneBuys, twoSells, theirs].sort(),
    );
    // Another owner's address, another owner's session, the public: an empty page.
    expect(await idsOf(`owner=${address}`, stranger.key)).toEqual([]);
    expect(await idsOf(`owner=${address}`)).toEqual([]);
    const otherSession = await sessionOf(t.app, newWallet(), t.config.chainId);
    expect(await idsOf(`owner=${address}`, otherSession)).toEqual([]);
    expect(await idsOf(`owner=${newWallet().address}`, one.key)).toEqual([]);
  });
});

describe("GET /api/agents/{id} recent_transactions", () => {
  it("lists the agent's five newest transactions in the Transaction shape", async () => {
    const profile = await json(await get(t.app, `/api/agents/${agent.a}`));
    const newest = await json(await get(t.app, `/api/transactions?agent_id=${agent.a}&limit=5`));
    expect(profile.recent_transactions).toHaveLength(5);
    expect(profile.recent_transactions).toEqual(newest.transactions);
    const own = await json(await get(t.app, "/api/agents/me", keyOfA));
    expect(own.recent_transactions).toEqual(newest.transactions);
  });

  it("merges the newest as buyer and as seller (C is both), newest first, cut at the limit", async () => {
    const listed = (await json(await get(t.app, `/api/transactions?agent_id=${agent.c}&limit=50`))).transactions;
    expect(listed.map((item: { id: string }) => item.id).sort()).toEqual([sc("cBuys").id, sc("cSells").id].sort());
    expect((await json(await get(t.app, `/api/agents/${agent.c}`))).recent_transactions).toEqual(listed);
    const location = { chainId: listed[0].chain_id, contractAddress: listed[0].contract_address };
    for (const limit of [1, 2]) {
      const { rows } = await t.db.execute<{ json: string }>(
        sql`SELECT ${newestTransactionsJson(t.db, t.config.chainId, sql`${agent.c}::uuid`, limit)} AS json`,
      );
      const fromJson = transactionFactsFromJson(rows[0]?.json ?? "").map((row) => toTransaction(row, location));
      expect(fromJson).toEqual(listed.slice(0, limit));
    }
  });

  it("are read from the profile statement's JSON as the list reads its rows, in every state", async () => {
    const listed = (await json(await get(t.app, `/api/transactions?agent_id=${agent.a}&limit=50`))).transactions;
    expect(new Set(listed.map((item: { state: string }) => item.state))).toEqual(
      new Set(["PENDING", "FUNDED", "DELIVERED", "RELEASED", "REFUNDED", "DISPUTED"]),
    );
    const { rows } = await t.db.execute<{ json: string }>(
      sql`SELECT ${newestTransactionsJson(t.db, t.config.chainId, sql`${agent.a}::uuid`, 50)} AS json`,
    );
    const location = { chainId: listed[0].chain_id, contractAddress: listed[0].contract_address };
    const fromJson = transactionFactsFromJson(rows[0]?.json ?? "").map((row) => toTransaction(row, location));
    expect(fromJson).toEqual(listed);
  });
});
