import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { type Address, getAddress, type Hex, keccak256 } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  listingRowsOf,
  post,
  registerAgent,
  registerHosted,
  type TestApp,
  testApp,
  uniqueWord,
  usdcBalance,
} from "../../../test/harness.ts";
import { balanceReservations, relayedTransactions, transactions } from "../../db/schema.ts";
import { ReservationLapsedError, balanceReservations as reservationsOf } from "./balance-reservations.ts";

/*
 * A hosted wallet's concurrent money moves on the suite's real chain: buys, bounty fundings,
 * direct escrows and withdrawals that do not all fit its balance. Those that fit are sent; the
 * others are answered 402 before anything is signed, leave no row behind, and the relayer mines
 * no transaction that reverts. Sends nothing from dev accounts (the relayer pays the gas).
 */

const PRICE = 2n * USDC;

let t: TestApp;
/** A second API process on the same database (its own pool and its own queue of reservations). */
let other: TestApp;
let market: Market;
let seller: { id: string; key: string };

beforeAll(async () => {
  t = await testApp();
  // Another process of the same deployment: the same master key opens the custodial wallets.
  other = await testApp({ masterKey: t.config.masterKey });
  market = testMarket();
  seller = await registerAgent(t.app, `seller ${uniqueWord()}`);
});
afterAll(() => Promise.all([t.close(), other.close()]));

const freshAddress = () => getAddress(`0x${randomBytes(20).toString("hex")}`);

/** A FIXED listing of the seller at `PRICE`. */
const fixedListing = async (): Promise<string> =>
  (await createListing(t.app, seller, { title: `Work ${uniqueWord()}`, price_wei: PRICE.toString() })).id;

const buy = (app: TestApp, listingId: string, key: string) => post(app.app, `/api/listings/${listingId}/buy`, {}, key);
const withdraw = (key: string, amount: bigint, app = t) =>
  post(app.app, "/api/wallet/withdraw", { destination_address: freshAddress(), amount_wei: amount.toString() }, key);

/** The block the chain is at now: sends of the test are mined after it. */
const blockNow = () => market.publicClient.getBlockNumber({ cacheTime: 0 });

/**
 * Every transaction mined after block `since` from the relayer or one of `wallets`, with its
 * receipt's status, read from the node block by block.
 */
async function sendsSince(since: bigint, wallets: Address[]): Promise<Array<{ hash: Hex; status: string }>> {
  const ours = new Set([t.services.relayer.address, ...wallets].map((address) => getAddress(address)));
  const sends: Array<{ hash: Hex; status: string }> = [];
  for (let number = since + 1n; number <= (await blockNow()); number++) {
    const block = await market.publicClient.getBlock({ blockNumber: number, includeTransactions: true });
    for (const tx of block.transactions) {
      if (!ours.has(getAddress(tx.from))) continue;
      const receipt = await market.publicClient.getTransactionReceipt({ hash: tx.hash });
      sends.push({ hash: tx.hash, status: receipt.status });
    }
  }
  return sends;
}

/** The statuses of concurrent answers, sorted: [200, 402, 402, ...]. */
const statuses = (responses: Response[]) => responses.map((response) => response.status).sort();

async function rowsBoughtBy(agentId: string) {
  return t.db.select().from(transactions).where(eq(transactions.buyerAgentId, agentId));
}

async function reservationsOfWallet(wallet: Address) {
  return t.db
    .select()
    .from(balanceReservations)
    .where(eq(balanceReservations.walletAddress, getAddress(wallet)));
}

/** Each 402 answer carries the existing body, naming the wallet and what the move needed. */
async function expectInsufficient(responses: Response[], wallet: Address, required: bigint) {
  for (const response of responses.filter((r) => r.status === 402)) {
    expect(await json(response), "402 body").toMatchObject({
      code: "insufficient_balance",
      required_wei: required.toString(),
      wallet_address: getAddress(wallet),
      chain_id: market.chainId,
      token: market.usdc,
    });
  }
}

describe("concurrent buys beyond the balance", () => {
  it("of six listings: one FUNDED, five 402 before anything is sent, no row left, nothing reverted", async () => {
    const listings = await Promise.all(Array.from({ length: 6 }, fixedListing));
    const buyer = await registerHosted(t.app, "buyer", PRICE);
    const since = await blockNow();
    const responses = await Promise.all(listings.map((id) => buy(t, id, buyer.key)));
    expect(statuses(responses)).toEqual([200, 402, 402, 402, 402, 402]);
    const funded = await json(responses.find((r) => r.status === 200) as Response);
    expect(funded).toMatchObject({ state: "FUNDED", amount_wei: PRICE.toString() });
    await expectInsufficient(responses, buyer.wallet, PRICE);
    // Only the funded purchase has a row: the refused ones left no PENDING transaction.
    expect((await rowsBoughtBy(buyer.id)).map((row) => row.id)).toEqual([funded.transaction_id]);
    const sends = await sendsSince(since, [buyer.wallet]);
    expect(sends, "one funding mined").toHaveLength(1);
    expect(
      sends.filter((send) => send.status !== "success"),
      "reverted sends",
    ).toEqual([]);
    expect(await usdcBalance(buyer.wallet)).toBe(0n);
    expect(await reservationsOfWallet(buyer.wallet), "reservations left").toEqual([]);
  });

  it("of one listing, through two API processes: one FUNDED, five 402, nothing reverted", async () => {
    const listing = await fixedListing();
    const buyer = await registerHosted(t.app, "buyer", PRICE + PRICE / 2n);
    const since = await blockNow();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => buy(i % 2 === 0 ? t : other, listing, buyer.key)),
    );
    expect(statuses(responses)).toEqual([200, 402, 402, 402, 402, 402]);
    await expectInsufficient(responses, buyer.wallet, PRICE);
    expect(await rowsBoughtBy(buyer.id)).toHaveLength(1);
    const sends = await sendsSince(since, [buyer.wallet]);
    expect(sends).toHaveLength(1);
    expect(
      sends.filter((send) => send.status !== "success"),
      "reverted sends",
    ).toEqual([]);
    expect(await usdcBalance(buyer.wallet)).toBe(PRICE / 2n);
  });

  it("with money for three of six, through two processes: three FUNDED, three 402", async () => {
    const listings = await Promise.all(Array.from({ length: 6 }, fixedListing));
    const buyer = await registerHosted(t.app, "buyer", 3n * PRICE);
    const since = await blockNow();
    const responses = await Promise.all(listings.map((id, i) => buy(i % 2 === 0 ? t : other, id, buyer.key)));
    expect(statuses(responses)).toEqual([200, 200, 200, 402, 402, 402]);
    expect(await rowsBoughtBy(buyer.id)).toHaveLength(3);
    const sends = await sendsSince(since, [buyer.wallet]);
    expect(sends).toHaveLength(3);
    expect(
      sends.filter((send) => send.status !== "success"),
      "reverted sends",
    ).toEqual([]);
    expect(await usdcBalance(buyer.wallet)).toBe(0n);
  });
});

describe("concurrent withdrawals beyond the balance", () => {
  it("one CONFIRMED, five 402 (never a 200 FAILED), nothing reverted", async () => {
    const agent = await registerHosted(t.app, "withdrawer", 3n * USDC);
    const since = await blockNow();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => withdraw(agent.key, 2n * USDC, i % 2 === 0 ? t : other)),
    );
    expect(statuses(responses)).toEqual([200, 402, 402, 402, 402, 402]);
    const confirmed = await json(responses.find((r) => r.status === 200) as Response);
    expect(confirmed).toMatchObject({ state: "CONFIRMED", amount_wei: (2n * USDC).toString() });
    await expectInsufficient(responses, agent.wallet, 2n * USDC);
    const sends = await sendsSince(since, [agent.wallet]);
    expect(sends).toHaveLength(1);
    expect(
      sends.filter((send) => send.status !== "success"),
      "reverted sends",
    ).toEqual([]);
    expect(await usdcBalance(agent.wallet)).toBe(1n * USDC);
    const listed = await json(await get(t.app, "/api/wallet/withdrawals", agent.key));
    expect(listed.withdrawals).toEqual([expect.objectContaining({ state: "CONFIRMED" })]);
  });
});

describe("different moves racing for the same money", () => {
  it("a bounty, a direct escrow, a buy and a withdrawal: one goes through, three 402, nothing left behind", async () => {
    const listing = await fixedListing();
    const agent = await registerHosted(t.app, "spender", PRICE);
    const since = await blockNow();
    const [bounty, direct, bought, withdrawn] = await Promise.all([
      post(
        t.app,
        "/api/listings",
        {
          agent_id: agent.id,
          title: `Bounty ${uniqueWord()}`,
          description: "Port the parser",
          price_wei: PRICE.toString(),
          listing_type: "BOUNTY",
        },
        agent.key,
      ),
      post(
        other.app,
        "/api/transactions",
        {
          buyer_agent_id: agent.id,
          seller_agent_id: seller.id,
          amount_wei: PRICE.toString(),
          description: "Direct work",
        },
        agent.key,
      ),
      buy(t, listing, agent.key),
      withdraw(agent.key, PRICE, other),
    ]);
    const responses = [bounty, direct, bought, withdrawn] as Response[];
    expect(
      responses.filter((r) => r.status === 402),
      "402 answers",
    ).toHaveLength(3);
    expect(
      responses.filter((r) => [200, 201].includes(r.status)),
      "answers that went through",
    ).toHaveLength(1);
    await expectInsufficient(responses, agent.wallet, PRICE);
    // A refused bounty leaves no listing, a refused escrow no row.
    expect(await listingRowsOf(t.db, agent.id)).toHaveLength(bounty.status === 201 ? 1 : 0);
    const rows = await rowsBoughtBy(agent.id);
    expect(rows).toHaveLength(withdrawn.status === 200 ? 0 : 1);
    const sends = await sendsSince(since, [agent.wallet]);
    expect(sends).toHaveLength(1);
    expect(
      sends.filter((send) => send.status !== "success"),
      "reverted sends",
    ).toEqual([]);
    expect(await usdcBalance(agent.wallet)).toBe(0n);
  });
});

describe("reservations a crash left behind", () => {
  /** A reservation row as a process that died would have left it. */
  async function leave(wallet: Address, fields: { amountWei: bigint; expiresInSeconds: number; txHash?: Hex }) {
    await t.db.insert(balanceReservations).values({
      chainId: market.chainId,
      walletAddress: getAddress(wallet),
      amountWei: fields.amountWei.toString(),
      purpose: "withdraw",
      txHash: fields.txHash,
      expiresAt: sql`now() + ${`${fields.expiresInSeconds} seconds`}::interval`,
    });
  }

  /** An outbox row of a send that never spent (dropped, or signed on another chain instance). */
  async function deadSend(status: "dropped" | "signed", chainInstance = t.services.relayer.chainInstance) {
    const raw = `0x${randomBytes(100).toString("hex")}` as Hex;
    const txHash = keccak256(raw);
    await t.db.insert(relayedTransactions).values({
      chainId: market.chainId,
      chainInstance,
      fromAddress: freshAddress(),
      nonce: 0,
      toAddress: market.usdc,
      data: "0x",
      purpose: "withdraw",
      rawTransaction: raw,
      txHash,
      status,
    });
    return txHash;
  }

  it("a live one holds its amount: the next move that does not fit is 402, naming what is held", async () => {
    const agent = await registerHosted(t.app, "held", 3n * USDC);
    await leave(agent.wallet, { amountWei: 2n * USDC, expiresInSeconds: 300 });
    const refused = await withdraw(agent.key, 2n * USDC);
    expect(refused.status).toBe(402);
    const body = await json(refused);
    expect(body).toMatchObject({ balance_wei: (1n * USDC).toString(), shortfall_wei: (1n * USDC).toString() });
    expect(body.error).toContain("held for sends in flight");
    expect((await withdraw(agent.key, 1n * USDC)).status, "what still fits").toBe(200);
  });

  it("lapse when never signed, and hold nothing once their send was dropped, mined, or sent on another chain", async () => {
    const agent = await registerHosted(t.app, "healed", 2n * USDC);
    // The faucet's grant to the wallet: a send mined before the next check reads the balance.
    const [grant] = await t.db
      .select({ txHash: relayedTransactions.txHash })
      .from(relayedTransactions)
      .where(
        and(
          eq(relayedTransactions.purpose, "faucet"),
          sql`${relayedTransactions.data} ILIKE ${`%${agent.wallet.slice(2)}%`}`,
        ),
      );
    expect(grant, "the faucet's send").toBeDefined();
    await leave(agent.wallet, { amountWei: 2n * USDC, expiresInSeconds: -1 });
    await leave(agent.wallet, { amountWei: 2n * USDC, expiresInSeconds: -1, txHash: await deadSend("dropped") });
    await leave(agent.wallet, {
      amountWei: 2n * USDC,
      expiresInSeconds: 300,
      txHash: await deadSend("signed", keccak256(randomBytes(32))),
    });
    await leave(agent.wallet, { amountWei: 2n * USDC, expiresInSeconds: 300, txHash: grant?.txHash as Hex });
    const response = await withdraw(agent.key, 2n * USDC);
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ state: "CONFIRMED" });
    expect(await reservationsOfWallet(agent.wallet), "the check cleared them").toEqual([]);
  });

  it("a send whose reservation lapsed before it was signed is not made", async () => {
    const agent = await registerHosted(t.app, "lapsed", 1n * USDC);
    const reservations = reservationsOf({ db: t.db, chain: t.services.chain, relayer: t.services.relayer });
    const attempt = reservations.hold(
      { wallet: agent.wallet, amountWei: 1n * USDC, purpose: "withdraw" },
      async (held) => {
        // Another process's check found it lapsed and removed it.
        await t.db.delete(balanceReservations).where(eq(balanceReservations.walletAddress, agent.wallet));
        await t.db.transaction((tx) => held.attach(tx, keccak256(randomBytes(32))));
      },
    );
    await expect(attempt).rejects.toBeInstanceOf(ReservationLapsedError);
  });
});
