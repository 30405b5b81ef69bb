import { agentEscrowAbi, mockUsdcAbi, USDC_DECIMALS } from "@agent-marketplace/contracts";
import { and, eq, ne } from "drizzle-orm";
import pino from "pino";
import { type Address, encodeFunctionData, formatUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexed, type Market, testMarket, USDC } from "../../../test/escrow.ts";
import {
  createListing,
  get,
  json,
  post,
  registerHosted,
  type TestApp,
  testApp,
  usdcBalance,
} from "../../../test/harness.ts";
import { CREDIT_WITHDRAWAL_PURPOSE } from "../../chain/escrow-actions.ts";
import { createChainServices } from "../../chain/services.ts";
import { relayedTransactions } from "../../db/schema.ts";
import { createKeeper } from "../../keeper/keeper.ts";

/*
 * Credited payouts paid out by the keeper, on the suite's real chain with MockUSDC's blacklist: a
 * seller blacklisted at release is credited (the escrow RELEASED, the wallet unchanged); keeper
 * rounds send nothing while the token still refuses; once the seller is taken off the blacklist,
 * the next round pays exactly the credit, once, and later rounds send nothing. Two keepers (two
 * processes' chain services on one database) at once send one withdrawal. This file sends from
 * dev account #0 only (the token's owner and blacklister; no other file sends from it), to
 * blacklist and unblacklist its own fresh sellers.
 */
const PRICE = 3_000_000n;
const BLACKLISTER = 0;

let t: TestApp;
let market: Market;
let keeper: ReturnType<typeof createKeeper>;

beforeAll(async () => {
  t = await testApp();
  market = testMarket();
  keeper = createKeeper({ db: t.db, config: t.config, ...t.services, logger: pino({ level: "silent" }) });
});
afterAll(() => t.close());

const blacklist = (account: Address) => market.send(BLACKLISTER, market.usdc, mockUsdcAbi, "blacklist", [account]);
const unBlacklist = (account: Address) => market.send(BLACKLISTER, market.usdc, mockUsdcAbi, "unBlacklist", [account]);

/** What the escrow owes `account`, on chain. */
const creditOf = (account: Address) =>
  market.publicClient.readContract({
    address: market.escrow,
    abi: agentEscrowAbi,
    functionName: "creditOf",
    args: [account],
  });

/** The indexer's row of `account`'s credit, once it has the chain's head. */
async function indexedCredit(account: Address) {
  await indexed(t.db, { blockNumber: await market.publicClient.getBlockNumber() });
  const { rows } = await t.db.$client.query<{ owed: string; total_withdrawn: string }>(
    "SELECT owed::text AS owed, total_withdrawn::text AS total_withdrawn FROM chain.credit WHERE chain_id = $1 AND account = $2",
    [t.config.chainId, account.toLowerCase()],
  );
  return rows[0];
}

/** The relayer's withdrawals of `account`'s credit in the outbox (any sender), other than dropped ones. */
async function withdrawalsSent(account: Address) {
  const data = encodeFunctionData({ abi: agentEscrowAbi, functionName: "withdrawCredit", args: [account] });
  return t.db
    .select({ status: relayedTransactions.status })
    .from(relayedTransactions)
    .where(
      and(
        eq(relayedTransactions.purpose, CREDIT_WITHDRAWAL_PURPOSE),
        eq(relayedTransactions.data, data),
        ne(relayedTransactions.status, "dropped"),
      ),
    );
}

/** The credit series of a scrape of /metrics (this machine may scrape), and what the indexer holds now. */
async function creditMetrics() {
  const text = await (await t.app.request("/metrics")).text();
  const sample = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  const { rows } = await t.db.$client.query<{ credits: string; accounts: number }>(
    `SELECT (SELECT credits::text FROM chain.escrow_totals WHERE chain_id = $1) AS credits,
            (SELECT count(*)::int FROM chain.credit WHERE chain_id = $1 AND owed > 0) AS accounts`,
    [t.config.chainId],
  );
  return {
    owedUsdc: sample("marketplace_escrow_credits_owed_usdc"),
    accounts: sample("marketplace_escrow_credited_accounts"),
    indexed: {
      owedUsdc: Number(formatUnits(BigInt(rows[0]?.credits ?? 0), USDC_DECIMALS)),
      accounts: rows[0]?.accounts,
    },
  };
}

/** CreditWithdrawn logs of `account` on chain. */
const creditWithdrawals = (account: Address) =>
  market.publicClient.getContractEvents({
    address: market.escrow,
    abi: agentEscrowAbi,
    eventName: "CreditWithdrawn",
    args: { account },
    fromBlock: 0n,
  });

/**
 * A hosted seller's delivered purchase, released by its buyer while the seller is blacklisted:
 * answers the seller and what the escrow credited it (the price less the fee).
 */
async function creditedRelease() {
  const seller = await registerHosted(t.app, "seller");
  const buyer = await registerHosted(t.app, "buyer", 10n * USDC);
  const listing = await createListing(t.app, seller, { price_wei: PRICE.toString() });
  const bought = await json(await post(t.app, `/api/listings/${listing.id}/buy`, {}, buyer.key));
  expect(bought.state, "bought").toBe("FUNDED");
  const id = bought.transaction_id as string;
  const delivered = await post(t.app, `/api/transactions/${id}/deliver`, { deliverable: "the work" }, seller.key);
  expect(delivered.status, "delivered").toBe(200);

  await blacklist(seller.wallet);
  const released = await post(t.app, `/api/transactions/${id}/release`, {}, buyer.key);
  expect(released.status, "released").toBe(200);
  const transaction = await json(await get(t.app, `/api/transactions/${id}`));
  expect(transaction.state, "the escrow is settled").toBe("RELEASED");
  const credited = BigInt(transaction.seller_receives_wei);
  expect(credited, "the seller's payout").toBeGreaterThan(0n);
  expect(await usdcBalance(seller.wallet), "the seller's wallet is unchanged").toBe(0n);
  expect(await creditOf(seller.wallet), "the payout is credited").toBe(credited);
  expect((await indexedCredit(seller.wallet))?.owed, "the indexer shows it owed").toBe(credited.toString());
  // The parties see where the payout went: a CREDITED event of the seller's wallet in the timeline.
  const { events } = await json(await get(t.app, `/api/transactions/${id}/timeline`, seller.key));
  expect(
    (events as { kind: string; actor: string; details: { amount_wei?: string } }[]).filter(
      (event) => event.kind === "CREDITED",
    ),
    "the timeline's credit",
  ).toMatchObject([{ actor: seller.wallet, details: { amount_wei: credited.toString() } }]);
  return { seller, id, credited };
}

describe("credited payouts", () => {
  it("are paid by the keeper once the token takes them again: nothing is sent while it refuses, the credit exactly and once after", async () => {
    const { seller, credited } = await creditedRelease();
    try {
      // Still blacklisted: the simulation refuses, nothing is signed.
      await keeper.runOnce();
      await keeper.runOnce();
      expect(await withdrawalsSent(seller.wallet), "withdrawals sent while blacklisted").toEqual([]);
      expect(await creditOf(seller.wallet), "still owed").toBe(credited);
      expect(await usdcBalance(seller.wallet), "still unpaid").toBe(0n);
      const owed = await creditMetrics();
      expect(owed.owedUsdc, "/metrics: USDC owed").toBeGreaterThanOrEqual(Number(formatUnits(credited, USDC_DECIMALS)));
      expect(owed.accounts, "/metrics: accounts owed").toBeGreaterThanOrEqual(1);
      expect({ owedUsdc: owed.owedUsdc, accounts: owed.accounts }, "/metrics: as indexed").toEqual(owed.indexed);
    } finally {
      await unBlacklist(seller.wallet);
    }

    // The round pays it (another test file's keeper round on this chain might, at the same moment:
    // the payment, not the report, is what must hold).
    await keeper.runOnce();
    expect(await usdcBalance(seller.wallet), "the seller is paid the credit").toBe(credited);
    expect(await creditOf(seller.wallet), "nothing owed on chain").toBe(0n);
    expect(await withdrawalsSent(seller.wallet), "one withdrawal, mined").toEqual([{ status: "mined" }]);

    // At once, whether or not the indexer has the withdrawal yet: the outbox's mined row counts.
    await keeper.runOnce();
    expect(await indexedCredit(seller.wallet), "the indexer's row").toEqual({
      owed: "0",
      total_withdrawn: credited.toString(),
    });
    await keeper.runOnce();
    expect(await withdrawalsSent(seller.wallet), "no second withdrawal").toHaveLength(1);
    expect(await creditWithdrawals(seller.wallet), "one CreditWithdrawn").toHaveLength(1);
    expect(await usdcBalance(seller.wallet), "paid once").toBe(credited);
    const paid = await creditMetrics();
    expect({ owedUsdc: paid.owedUsdc, accounts: paid.accounts }, "/metrics once paid: as indexed").toEqual(
      paid.indexed,
    );
  });

  it("is sent once by two keepers running at once, each with its own relayer on the same key and database", async () => {
    const { seller, credited } = await creditedRelease();
    await unBlacklist(seller.wallet);
    const otherProcess = await createChainServices(t.config, t.db, t.services.chain.deployment);
    const otherKeeper = createKeeper({
      db: t.db,
      config: t.config,
      ...otherProcess,
      logger: pino({ level: "silent" }),
    });

    const reports = await Promise.all([keeper.runOnce(), otherKeeper.runOnce(), keeper.runOnce()]);
    expect(
      reports.map((report) => report.creditsPaid).reduce((a, b) => a + b),
      "withdrawals reported",
    ).toBeGreaterThanOrEqual(1);
    expect(await withdrawalsSent(seller.wallet), "one withdrawal sent").toEqual([{ status: "mined" }]);
    expect(await creditWithdrawals(seller.wallet), "one CreditWithdrawn").toHaveLength(1);
    expect(await usdcBalance(seller.wallet), "paid once").toBe(credited);
    expect(await creditOf(seller.wallet), "nothing owed").toBe(0n);
  });
});
