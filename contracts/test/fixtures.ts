/**
 * Shared deployment and client-side helpers of the escrow integration tests.
 *
 * The helpers do what a client (the API, the indexer) does: funding refs from uuids, escrow ids
 * derived from the buyer and the ref, terms rebuilt
 * from the escrow's events, token balances read on chain.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { ContractReturnType } from "@nomicfoundation/hardhat-viem/types";
import { network } from "hardhat";
import { type Address, getAddress, type Hex, type Log, parseEventLogs, type TransactionReceipt } from "viem";
import { type EscrowStatus, type EscrowTerms, escrowIdOf, escrowRef, hashEscrowTerms } from "../src/escrow.ts";

export const connection = await network.create();
export const { viem, networkHelpers } = connection;
export const publicClient = await viem.getPublicClient();

export const DAY = 86_400;
export const USDC = 1_000_000n;
export const BPS = 10_000n;
export const FEE_BPS = 100;
export const MAX_FEE_BPS = 1_000;
export const STARTING_BALANCE = 1_000_000n * USDC;

export type Wallet = Awaited<ReturnType<typeof viem.getWalletClients>>[number];
export type Escrow = ContractReturnType<"AgentEscrow">;
export type Usdc = ContractReturnType<"MockUSDC">;

/**
 * MockUSDC and AgentEscrow (fee 100 bps, cap 1,000 bps), a second AgentEscrow on the same token
 * (for cross-contract signature checks), and every party's wallet and contract handles. The buyer,
 * seller, relayer and stranger hold 1,000,000 USDC each; the fee recipient, arbiter and operator
 * hold nothing.
 */
export async function deployEscrowFixture() {
  const wallets = await viem.getWalletClients();
  const [owner, buyer, seller, feeRecipient, arbiter, operator, relayer, stranger] = wallets;
  if (!owner || !buyer || !seller || !feeRecipient || !arbiter || !operator || !relayer || !stranger) {
    throw new Error("need 8 accounts");
  }
  const usdc = await viem.deployContract("MockUSDC", [owner.account.address]);
  const roles = [feeRecipient.account.address, arbiter.account.address, operator.account.address] as const;
  const escrow = await viem.deployContract("AgentEscrow", [
    usdc.address,
    MAX_FEE_BPS,
    FEE_BPS,
    ...roles,
    owner.account.address,
  ]);
  const otherEscrow = await viem.deployContract("AgentEscrow", [
    usdc.address,
    MAX_FEE_BPS,
    FEE_BPS,
    ...roles,
    owner.account.address,
  ]);
  for (const wallet of [buyer, seller, relayer, stranger]) {
    await usdc.write.mint([wallet.account.address, STARTING_BALANCE]);
  }

  const escrowAs = (wallet: Wallet) => viem.getContractAt("AgentEscrow", escrow.address, { client: { wallet } });
  const usdcAs = (wallet: Wallet) => viem.getContractAt("MockUSDC", usdc.address, { client: { wallet } });

  const wallet = { owner, buyer, seller, feeRecipient, arbiter, operator, relayer, stranger };
  return {
    chainId: await publicClient.getChainId(),
    usdc,
    escrow,
    otherEscrow,
    wallets: wallet,
    /** Checksummed addresses, as viem decodes them from events and errors. */
    addr: Object.fromEntries(
      Object.entries(wallet).map(([role, w]) => [role, getAddress(w.account.address)]),
    ) as Record<keyof typeof wallet, Address>,
    as: {
      buyer: await escrowAs(buyer),
      seller: await escrowAs(seller),
      arbiter: await escrowAs(arbiter),
      operator: await escrowAs(operator),
      relayer: await escrowAs(relayer),
      stranger: await escrowAs(stranger),
    },
    usdcAs: {
      owner: await usdcAs(owner),
      buyer: await usdcAs(buyer),
      relayer: await usdcAs(relayer),
      stranger: await usdcAs(stranger),
    },
  };
}

export type EscrowFixture = Awaited<ReturnType<typeof deployEscrowFixture>>;

export const loadEscrowFixture = () => networkHelpers.loadFixture(deployEscrowFixture);

/*//////////////////////////////////////////////////////////////
                           CLIENT HELPERS
//////////////////////////////////////////////////////////////*/

/** A fresh API transaction: its uuid and the funding ref made from it (the escrow id also needs the buyer). */
export function newEscrowRef(): { uuid: string; ref: Hex } {
  const uuid = randomUUID();
  return { uuid, ref: escrowRef(uuid) };
}

/** Timestamp of the latest block. */
export async function now(): Promise<number> {
  return networkHelpers.time.latest();
}

/** Waits for the transaction and checks that it succeeded. */
export async function mined(hash: Hex | Promise<Hex>): Promise<TransactionReceipt> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

/**
 * Applies the escrow's events, in order, to the terms of `escrowId`, as the indexer does: Funded
 * sets them, SellerAssigned changes seller and deadline, Delivered sets deliveredAt to its block's
 * timestamp. Returns undefined when there is no Funded event for the id.
 */
export async function termsFromLogs(
  escrow: Escrow,
  escrowId: Hex,
  logs: Log[],
  initial?: EscrowTerms,
): Promise<EscrowTerms | undefined> {
  const events = parseEventLogs({
    abi: escrow.abi,
    logs: logs.filter((log) => log.address.toLowerCase() === escrow.address.toLowerCase()),
    eventName: ["Funded", "SellerAssigned", "Delivered"],
  });
  let terms = initial;
  for (const event of events) {
    if (event.args.escrowId !== escrowId) continue;
    switch (event.eventName) {
      case "Funded": {
        const { buyer, seller, amount, deadline, disputeWindow, feeBps } = event.args;
        terms = { buyer, seller, amount, deadline, disputeWindow, deliveredAt: 0, feeBps };
        break;
      }
      case "SellerAssigned": {
        assert.ok(terms, "SellerAssigned before Funded");
        terms = { ...terms, seller: event.args.seller, deadline: event.args.deadline };
        break;
      }
      case "Delivered": {
        assert.ok(terms, "Delivered before Funded");
        const block = await publicClient.getBlock({ blockNumber: event.blockNumber });
        terms = { ...terms, deliveredAt: Number(block.timestamp) };
        break;
      }
    }
  }
  return terms;
}

/** The terms of `escrowId` rebuilt from every event of the escrow contract since genesis. */
export async function indexTerms(escrow: Escrow, escrowId: Hex): Promise<EscrowTerms> {
  const logs = await publicClient.getLogs({ address: escrow.address, fromBlock: 0n, toBlock: "latest" });
  const terms = await termsFromLogs(escrow, escrowId, logs);
  assert.ok(terms, `no Funded event for ${escrowId}`);
  return terms;
}

/** The terms after one transaction: from its receipt's events, applied to `previous`. */
export async function termsAfter(
  escrow: Escrow,
  escrowId: Hex,
  receipt: TransactionReceipt,
  previous?: EscrowTerms,
): Promise<EscrowTerms> {
  const terms = await termsFromLogs(escrow, escrowId, receipt.logs, previous);
  assert.ok(terms, `no Funded event for ${escrowId}`);
  return terms;
}

/**
 * The buyer approves exactly `amount` and funds under `ref` (a fresh one by default); returns the
 * escrow's id, escrowIdOf(buyer, ref), and the terms as emitted.
 */
export async function fundEscrow(
  f: EscrowFixture,
  opts: { ref?: Hex; seller?: Address; amount: bigint; deadline?: number; disputeWindow?: number },
): Promise<{ id: Hex; ref: Hex; terms: EscrowTerms; receipt: TransactionReceipt }> {
  const ref = opts.ref ?? newEscrowRef().ref;
  const id = escrowIdOf(f.addr.buyer, ref);
  const seller = opts.seller ?? f.addr.seller;
  const deadline = opts.deadline ?? (await now()) + 7 * DAY;
  const disputeWindow = opts.disputeWindow ?? DAY;
  await mined(f.usdcAs.buyer.write.approve([f.escrow.address, opts.amount]));
  const receipt = await mined(f.as.buyer.write.fund([ref, seller, opts.amount, deadline, disputeWindow]));
  const terms = await termsAfter(f.escrow, id, receipt);
  return { id, ref, terms, receipt };
}

/**
 * Checks the escrow's stored status, and that its stored hash is `hashEscrowTerms(terms)` and the
 * contract's own `hashTerms(terms)`.
 */
export async function assertStored(f: EscrowFixture, id: Hex, status: EscrowStatus, terms: EscrowTerms) {
  const [storedStatus, storedHash] = await f.escrow.read.escrowState([id]);
  assert.equal(storedStatus, status);
  assert.equal(storedHash, hashEscrowTerms(terms));
  assert.equal(await f.escrow.read.hashTerms([terms]), storedHash);
}

/** Status of the escrow, as stored. */
export async function statusOf(f: EscrowFixture, id: Hex): Promise<number> {
  return (await f.escrow.read.escrowState([id]))[0];
}

/** Token balances of the given accounts. */
export async function balancesOf(usdc: Usdc, accounts: readonly Address[]): Promise<bigint[]> {
  return Promise.all(accounts.map((account) => usdc.read.balanceOf([account])));
}

/**
 * Records the token balances of `accounts` now; `assertChanged` later checks the exact change of
 * each (zero for those not listed).
 */
export async function balanceTracker(usdc: Usdc, accounts: Record<string, Address>) {
  const names = Object.keys(accounts);
  const addresses = Object.values(accounts);
  const before = await balancesOf(usdc, addresses);
  return {
    before: Object.fromEntries(names.map((name, i) => [name, before[i] ?? 0n])),
    async assertChanged(expected: Record<string, bigint>) {
      for (const name of Object.keys(expected)) assert.ok(names.includes(name), `untracked account ${name}`);
      const after = await balancesOf(usdc, addresses);
      const actual = Object.fromEntries(names.map((name, i) => [name, (after[i] ?? 0n) - (before[i] ?? 0n)]));
      const wanted = Object.fromEntries(names.map((name) => [name, expected[name] ?? 0n]));
      assert.deepEqual(actual, wanted);
    },
  };
}
