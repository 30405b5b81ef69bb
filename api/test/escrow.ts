import { randomUUID } from "node:crypto";
import { agentEscrowAbi, escrowIdOf, escrowRef, mockUsdcAbi } from "@agent-marketplace/contracts";
import { waitForIndexedBlock } from "@agent-marketplace/indexer";
import { DAY, type FundedEscrow, Market } from "@agent-marketplace/indexer/testing/market";
import { type Address, type Hex, maxUint256, parseEventLogs, type TransactionReceipt } from "viem";
import { inject } from "vitest";
import { transactions } from "../src/db/schema.ts";
import type { Database } from "./harness.ts";

/*
 * Escrows on the suite's chain for the API's own transaction ids. Market.fund() picks its own
 * uuid; fundEscrow() funds under the uuid of a row in app.transactions, so the API joins the two.
 *
 * Test files run in parallel processes, each with its own nonce manager: a file must only send
 * from dev accounts no other file sends from (see the account ranges the test files name).
 */

export { DAY, type FundedEscrow, Market };
export const USDC = 1_000_000n;

/** A driver of the suite's chain (test/global-setup.ts). */
export function testMarket(): Market {
  const stack = inject("stack");
  return new Market(stack.rpcUrl, stack.deployment);
}

/** Mints `amount` USDC to each account (MockUSDC's open faucet) and lets the escrow spend it. */
export async function fundAccounts(market: Market, accounts: number[], amount: bigint): Promise<void> {
  for (const index of accounts) {
    await market.send(index, market.usdc, mockUsdcAbi, "mint", [market.address(index), amount]);
    await market.send(index, market.usdc, mockUsdcAbi, "approve", [market.escrow, maxUint256]);
  }
}

/** `buyer` (an account index, approved by fundAccounts) funds the escrow of transaction `uuid`. */
export async function fundEscrow(
  market: Market,
  buyer: number,
  uuid: string,
  seller: Address,
  amount: bigint,
  options: { deadlineIn?: number; deadline?: Date; disputeWindow?: number } = {},
): Promise<FundedEscrow & { receipt: TransactionReceipt }> {
  const ref = escrowRef(uuid);
  const id = escrowIdOf(market.address(buyer), ref);
  const deadline = options.deadline
    ? Math.floor(options.deadline.getTime() / 1000)
    : (await market.now()) + (options.deadlineIn ?? 7 * DAY);
  const disputeWindow = options.disputeWindow ?? DAY;
  const receipt = await market.send(buyer, market.escrow, agentEscrowAbi, "fund", [
    ref,
    seller,
    amount,
    deadline,
    disputeWindow,
  ]);
  const funded = parseEventLogs({ abi: agentEscrowAbi, logs: receipt.logs, eventName: "Funded" }).find(
    (log) => log.args.escrowId === id,
  );
  if (!funded) throw new Error(`no Funded event for ${id}`);
  const { amount: funds, deadline: until, disputeWindow: window, feeBps } = funded.args;
  return {
    uuid,
    ref,
    id,
    terms: {
      buyer: funded.args.buyer,
      seller: funded.args.seller,
      amount: funds,
      deadline: until,
      disputeWindow: window,
      deliveredAt: 0,
      feeBps,
    },
    receipt,
  };
}

/** Waits until the indexer has processed the block of `receipt` (so the API's views show it). */
export async function indexed(db: Database, receipt: { blockNumber: bigint }): Promise<void> {
  const chainId = inject("stack").deployment.chainId;
  const done = await waitForIndexedBlock((text) => db.$client.query(text), chainId, receipt.blockNumber, {
    timeoutMs: 60_000,
  });
  if (!done) throw new Error(`the indexer did not reach block ${receipt.blockNumber}`);
}

export interface TransactionValues {
  buyer: string;
  seller: string | null;
  /** The listing bought or the bounty rewarded (a BOUNTY listing's row is funded without a seller). */
  listingId?: string;
  amountWei: bigint;
  description?: string;
  id?: string;
  createdAt?: Date;
  deadline?: Date;
}

/**
 * Inserts rows into app.transactions in one statement, as the money-flow routes will write them
 * (dispute window: one day, as fundEscrow's default); returns their ids. Rows without createdAt share the statement's now(), to the microsecond.
 */
export async function insertTransactions(db: Database, rows: TransactionValues[]): Promise<string[]> {
  const values = rows.map((row) => ({
    id: row.id ?? randomUUID(),
    buyerAgentId: row.buyer,
    sellerAgentId: row.seller,
    amountWei: row.amountWei.toString(),
    description: row.description ?? "",
    listingId: row.listingId ?? null,
    // Whole seconds, as the chain holds a deadline: fundEscrow(..., { deadline }) funds these very terms.
    deadline: row.deadline ?? new Date((Math.floor(Date.now() / 1000) + 7 * DAY) * 1000),
    disputeWindowSeconds: DAY,
    ...(row.createdAt && { createdAt: row.createdAt }),
  }));
  await db.insert(transactions).values(values);
  return values.map((row) => row.id);
}

export async function insertTransaction(db: Database, row: TransactionValues): Promise<string> {
  const [id] = await insertTransactions(db, [row]);
  return id as string;
}

/** The seller the escrow of `transactionId` names last (its last SellerAssigned event): a bounty's hunter. */
export async function sellerOnChain(market: Market, transactionId: string): Promise<Address> {
  // The escrows funded under the transaction's reference (the ref is not an indexed topic).
  const ref = escrowRef(transactionId);
  const funded = await market.publicClient.getContractEvents({
    address: market.escrow,
    abi: agentEscrowAbi,
    eventName: "Funded",
    fromBlock: 0n,
  });
  const ids = funded.filter((event) => event.args.ref === ref).map((event) => event.args.escrowId as Hex);
  const events =
    ids.length === 0
      ? []
      : await market.publicClient.getContractEvents({
          address: market.escrow,
          abi: agentEscrowAbi,
          eventName: "SellerAssigned",
          args: { escrowId: ids },
          fromBlock: 0n,
        });
  const last = events.at(-1);
  if (!last) throw new Error(`no SellerAssigned event for ${transactionId}`);
  return last.args.seller as Address;
}

/**
 * Runs the keeper until a run releases `id`, or a run settles nothing: escrows of the suite's
 * other files may be due too, and a run takes the oldest first.
 */
export async function keeperReleases(
  keeper: { runOnce(): Promise<{ released: string[]; refunded: string[] }> },
  id: string,
): Promise<boolean> {
  for (let run = 0; run < 20; run++) {
    const { released, refunded } = await keeper.runOnce();
    if (released.includes(id)) return true;
    if (released.length === 0 && refunded.length === 0) return false;
  }
  return false;
}
