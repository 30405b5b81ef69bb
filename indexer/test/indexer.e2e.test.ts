/**
 * The indexer against real parts: a Hardhat node with the marketplace deployed, an embedded
 * Postgres, and `ponder start --views-schema chain` as a process. Every flow of the escrow runs on
 * chain, then each row of the `chain` views is checked against the contracts' own getters.
 */

import { readFileSync } from "node:fs";
import path from "node:path";
import {
  agentEscrowAbi,
  escrowIdOf,
  hashEscrowTerms,
  identityRegistryAbi,
  mockUsdcAbi,
  reputationRegistryAbi,
} from "@agent-marketplace/contracts";
import { type Address, getAddress, type Hex, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexedBlock, waitForIndexedBlock } from "../lib/checkpoint.ts";
import { CONTRACT_STATUS, type EscrowState, termsOf, uuidOfFundingRef, ZERO_ADDRESS } from "../lib/escrow-mapping.ts";
import { dropStaleIndexerSchemas, type IndexerProcess, startIndexer } from "../lib/indexer-process.ts";
import { DAY, type FundedEscrow, Market, ROLE, USDC } from "./market.ts";
import { freePort, type Stack, startStack } from "./stack.ts";

/** Every local dev account (#0-#9) starts with this much USDC (contracts/scripts/deploy.ts). */
const DEV_BALANCE = 10_000n * USDC;
/** Trading accounts: they hold USDC and move it only through the escrow. */
const ALICE = 3;
const BOB = 4;
const CAROL = 5;
const DAVE = 6;
const ERIN = 7;
/** Accounts without USDC: a relayer and a stranger who triggers the time rules. */
const RELAYER = 10;
const STRANGER = 11;

let stack: Stack;
let market: Market;

const query = (sql: string) => stack.db.query(sql);

/** Waits until the indexer has processed the chain's latest block. */
async function indexed(): Promise<void> {
  const head = await market.publicClient.getBlockNumber();
  expect(await waitForIndexedBlock(query, market.chainId, head, { timeoutMs: 30_000 })).toBe(true);
}

type Row = Record<string, unknown>;

async function rows(view: string, order = "1"): Promise<Row[]> {
  return (await stack.db.query(`SELECT * FROM chain.${view} WHERE chain_id = $1 ORDER BY ${order}`, [market.chainId]))
    .rows;
}

async function escrowRow(id: Hex): Promise<Row | undefined> {
  return (await stack.db.query("SELECT * FROM chain.escrow WHERE chain_id = $1 AND id = $2", [market.chainId, id]))
    .rows[0];
}

/** Reads the escrow contract's getters. */
const escrowReader = () => ({
  state: (id: Hex) =>
    market.publicClient.readContract({
      address: market.escrow,
      abi: agentEscrowAbi,
      functionName: "escrowState",
      args: [id],
    }),
  isBounty: (id: Hex) =>
    market.publicClient.readContract({
      address: market.escrow,
      abi: agentEscrowAbi,
      functionName: "isBounty",
      args: [id],
    }),
  creditOf: (account: Address) =>
    market.publicClient.readContract({
      address: market.escrow,
      abi: agentEscrowAbi,
      functionName: "creditOf",
      args: [account],
    }),
  totalCredits: () =>
    market.publicClient.readContract({ address: market.escrow, abi: agentEscrowAbi, functionName: "totalCredits" }),
});

/** The escrow contract's logs since its deployment, decoded. */
async function escrowLogs() {
  const logs = await market.publicClient.getLogs({
    address: market.escrow,
    fromBlock: BigInt(stack.deployment.contracts.AgentEscrow.startBlock),
    toBlock: "latest",
  });
  return parseEventLogs({ abi: agentEscrowAbi, logs });
}

const TIMELINE_EVENTS = new Set([
  "Funded",
  "SellerAssigned",
  "Delivered",
  "Disputed",
  "Released",
  "Refunded",
  "Resolved",
  "Credited",
  "CreditWithdrawn",
]);

/**
 * Every view against the chain:
 * - chain.escrow: one row per Funded log, at escrowIdOf(buyer, ref) with the uuid of the log's ref;
 *   each row's status and terms hash are what the contract's escrowState(id) returns, its bounty
 *   flag what isBounty(id) returns;
 * - chain.escrow_event: exactly one row per escrow or credit log (no duplicate, none missing);
 * - chain.credit and escrow_totals.credits: creditOf(account), totalCredits();
 * - escrow_totals.locked: what the contract holds beyond the credits;
 * - chain.account_stats: each trading account's USDC balance follows from its figures;
 * - chain.escrow_settings: feeBps(), feeRecipient(), arbiter(), operator().
 */
async function expectViewsMatchChain(): Promise<void> {
  await indexed();
  const logs = await escrowLogs();

  const escrows = await rows("escrow", "id");
  const fundedIds = logs.flatMap((log) => (log.eventName === "Funded" ? [log.args.escrowId] : [])).sort();
  expect(escrows.map((row) => row.id)).toEqual(fundedIds);
  const refs = new Map(logs.flatMap((log) => (log.eventName === "Funded" ? [[log.args.escrowId, log.args.ref]] : [])));
  for (const row of escrows) {
    const ref = refs.get(row.id as Hex) as Hex;
    expect(row.id).toBe(escrowIdOf(row.buyer as Address, ref));
    expect(row.uuid).toBe(uuidOfFundingRef(ref, row.id as Hex));
    const [status, termsHash] = await escrowReader().state(row.id as Hex);
    expect({ id: row.id, status: CONTRACT_STATUS[row.status as EscrowState] }).toEqual({ id: row.id, status });
    expect(hashEscrowTerms(termsOf(termsColumns(row)))).toBe(termsHash);
    expect(row.is_bounty).toBe(await escrowReader().isBounty(row.id as Hex));
  }

  const timeline = await rows("escrow_event", "block_number, log_index");
  const expected = logs.filter((log) => TIMELINE_EVENTS.has(log.eventName));
  expect(timeline.map((row) => `${row.tx_hash}:${row.log_index}`)).toEqual(
    expected.map((log) => `${log.transactionHash}:${log.logIndex}`),
  );

  const credits = await rows("credit", "account");
  for (const row of credits) {
    expect(BigInt(row.owed as string)).toBe(await escrowReader().creditOf(row.account as Address));
  }
  const [totals] = await rows("escrow_totals");
  const totalCredits = await escrowReader().totalCredits();
  expect(BigInt((totals?.credits as string) ?? 0)).toBe(totalCredits);
  const held = await usdcBalance(market.escrow);
  expect(BigInt((totals?.locked as string) ?? 0) + totalCredits).toBe(held);
  expect(Number(totals?.escrows ?? 0)).toBe(escrows.length);

  const stats = new Map((await rows("account_stats")).map((row) => [getAddress(row.address as string), row]));
  const owed = new Map(credits.map((row) => [getAddress(row.account as string), BigInt(row.owed as string)]));
  for (const index of [ALICE, BOB, CAROL, DAVE, ERIN]) {
    const address = market.address(index);
    const row = stats.get(address);
    const figure = (name: string) => BigInt((row?.[name] as string | undefined) ?? 0);
    // Funded amounts are locked, went to the seller side, or came back; sellers get payouts, paid
    // now or owed as a credit.
    const expectedBalance =
      DEV_BALANCE -
      figure("volume_as_buyer") -
      figure("locked_as_buyer") +
      figure("earned") -
      (owed.get(address) ?? 0n);
    expect({ index, balance: await usdcBalance(address) }).toEqual({ index, balance: expectedBalance });
  }
  // The fee recipient (account #0) receives every fee.
  expect(await usdcBalance(market.address(ROLE.owner))).toBe(
    DEV_BALANCE + BigInt((totals?.fees_collected as string) ?? 0) - (owed.get(market.address(ROLE.owner)) ?? 0n),
  );

  const [settings] = await rows("escrow_settings");
  const read = async (functionName: "feeBps" | "feeRecipient" | "arbiter" | "operator") =>
    String(await market.publicClient.readContract({ address: market.escrow, abi: agentEscrowAbi, functionName }));
  expect(settings).toMatchObject({
    address: market.escrow.toLowerCase(),
    fee_bps: Number(await read("feeBps")),
    fee_recipient: (await read("feeRecipient")).toLowerCase(),
    arbiter: (await read("arbiter")).toLowerCase(),
    operator: (await read("operator")).toLowerCase(),
  });
}

function termsColumns(row: Row) {
  return {
    buyer: row.buyer as Hex,
    seller: row.seller as Hex,
    amount: BigInt(row.amount as string),
    deadline: BigInt(row.deadline as string),
    disputeWindow: row.dispute_window as number,
    deliveredAt: BigInt(row.delivered_at as string),
    feeBps: row.fee_bps as number,
  };
}

function usdcBalance(address: Address): Promise<bigint> {
  return market.publicClient.readContract({
    address: market.usdc,
    abi: mockUsdcAbi,
    functionName: "balanceOf",
    args: [address],
  });
}

beforeAll(async () => {
  stack = await startStack({ name: "indexer-e2e" });
  market = new Market(stack.node.rpcUrl, stack.deployment);
  await stack.startIndexer();
});

afterAll(async () => {
  await stack?.stop();
});

describe("indexer end to end", () => {
  const open: Record<string, FundedEscrow> = {};

  it("publishes its checkpoint and the contract's settings once started", async () => {
    await indexed();
    expect(await indexedBlock(query, market.chainId)).toBeGreaterThanOrEqual(
      BigInt(stack.deployment.contracts.AgentEscrow.startBlock),
    );
    await expectViewsMatchChain();
  });

  it("mirrors every escrow flow: release, refund, bounty claim, auto-release, rulings, signed actions, credits", async () => {
    // Fund, deliver, release by the buyer.
    const released = await market.fund(ALICE, market.address(BOB), 25n * USDC);
    await market.deliver(BOB, released);
    await market.release(ALICE, released);

    // Refund by the buyer before delivery.
    const cancelled = await market.fund(ALICE, market.address(CAROL), 10n * USDC);
    await market.refund(ALICE, cancelled);

    // Another buyer funds the same transaction's ref: an escrow of its own, carrying the same uuid.
    const sameRef = await market.fund(ERIN, market.address(CAROL), 3n * USDC, { uuid: released.uuid });
    expect(sameRef.id).not.toBe(released.id);
    expect(await indexedRow(sameRef.id)).toMatchObject({ uuid: released.uuid, status: "FUNDED" });
    expect(await indexedRow(released.id)).toMatchObject({ uuid: released.uuid, status: "RELEASED" });
    await market.refund(ERIN, sameRef);

    // A bounty: funded without a seller, claimed through the operator, delivered, and released by
    // a stranger once the dispute window has passed (auto-release).
    const bounty = await market.fund(CAROL, ZERO_ADDRESS, 40n * USDC, { disputeWindow: DAY });
    let row = await indexedRow(bounty.id);
    expect(row).toMatchObject({ status: "FUNDED", is_bounty: true, seller: ZERO_ADDRESS });
    await market.assignSeller(ROLE.operator, bounty, market.address(DAVE));
    await market.deliver(DAVE, bounty, "bounty work");
    await market.increaseTime(DAY + 1);
    await market.release(STRANGER, bounty);
    row = await indexedRow(bounty.id);
    expect(row).toMatchObject({
      status: "RELEASED",
      seller: market.address(DAVE).toLowerCase(),
      settled_by: market.address(STRANGER).toLowerCase(),
      seller_payout: String(40n * USDC - (40n * USDC * 100n) / 10_000n),
      fee_paid: String((40n * USDC * 100n) / 10_000n),
    });

    // Disputed after delivery, split 60/40 by the arbiter.
    const split = await market.fund(DAVE, market.address(ERIN), 50n * USDC);
    await market.deliver(ERIN, split);
    await market.dispute(DAVE, split, "half done");
    await market.resolve(split, 6_000);
    row = await indexedRow(split.id);
    expect(row).toMatchObject({
      status: "RESOLVED",
      resolution_seller_bps: 6_000,
      seller_payout: String(30n * USDC - (30n * USDC * 100n) / 10_000n),
      buyer_payout: String(20n * USDC),
      disputed_by: market.address(DAVE).toLowerCase(),
    });

    // Disputed before delivery, ruled fully for the buyer.
    const forBuyer = await market.fund(ERIN, market.address(ALICE), 5n * USDC);
    await market.dispute(ALICE, forBuyer);
    await market.resolve(forBuyer, 0);

    // Funded gaslessly with an EIP-3009 authorization; delivered and released with signatures
    // that a relayer submits.
    const gasless = await market.fundWithAuthorization(BOB, RELAYER, market.address(CAROL), 15n * USDC);
    await market.deliverWithSig(CAROL, RELAYER, gasless);
    await market.releaseWithSig(BOB, RELAYER, gasless);
    row = await indexedRow(gasless.id);
    expect(row).toMatchObject({ status: "RELEASED", buyer: market.address(BOB).toLowerCase() });

    // The deadline passes without delivery: anyone may refund.
    const expired = await market.fund(ALICE, market.address(ERIN), 7n * USDC, { deadlineIn: DAY });
    await market.increaseTime(DAY + 1);
    await market.refund(STRANGER, expired);

    // USDC blacklists the seller: its payout is credited, then withdrawn once it is cleared.
    const blocked = await market.fund(CAROL, market.address(BOB), 12n * USDC);
    await market.deliver(BOB, blocked);
    await market.blacklist(market.address(BOB), true);
    await market.release(CAROL, blocked);
    const credit = await indexedCredit(market.address(BOB));
    expect(credit).toMatchObject({ owed: String(12n * USDC - (12n * USDC) / 100n), last_escrow_id: blocked.id });
    await market.blacklist(market.address(BOB), false);
    await market.withdrawCredit(STRANGER, market.address(BOB));

    // Still open: funded, delivered, disputed.
    open.funded = await market.fund(BOB, market.address(ALICE), 3n * USDC);
    open.delivered = await market.fund(ERIN, market.address(DAVE), 4n * USDC);
    await market.deliver(DAVE, open.delivered);
    open.disputed = await market.fund(ALICE, market.address(DAVE), 6n * USDC);
    await market.dispute(DAVE, open.disputed);

    await expectViewsMatchChain();
    const timeline = await stack.db.query(
      "SELECT kind FROM chain.escrow_event WHERE escrow_id = $1 ORDER BY block_number, log_index",
      [bounty.id],
    );
    expect(timeline.rows.map((r) => r.kind)).toEqual(["FUNDED", "SELLER_ASSIGNED", "DELIVERED", "RELEASED"]);
    const alice = await stack.db.query("SELECT * FROM chain.account_stats WHERE address = $1", [
      market.address(ALICE).toLowerCase(),
    ]);
    expect(alice.rows[0]).toMatchObject({
      escrows_as_buyer: 4,
      released_as_buyer: 1,
      refunded_as_buyer: 2,
      disputed_as_seller: 1,
      resolved_as_seller: 1,
      locked_as_buyer: String(6n * USDC),
    });
  });

  it("mirrors ERC-8004 identities and feedback", async () => {
    const agentId = await market.registerAgent(ALICE, "https://agents.example/alice.json");
    await market.send(ALICE, market.identityRegistry, identityRegistryAbi, "setAgentURI", [agentId, "ipfs://alice-v2"]);
    await market.giveFeedback(BOB, agentId, 95n, "escrow-release");
    await market.giveFeedback(CAROL, agentId, 20n, "escrow-dispute");
    await market.send(CAROL, market.reputationRegistry, reputationRegistryAbi, "revokeFeedback", [agentId, 1n]);
    const transferred = await market.registerAgent(DAVE, "");
    await market.send(DAVE, market.identityRegistry, identityRegistryAbi, "transferFrom", [
      market.address(DAVE),
      market.address(ERIN),
      transferred,
    ]);
    await indexed();

    for (const row of await rows("erc8004_agent", "agent_id")) {
      const id = BigInt(row.agent_id as string);
      const registry = { address: market.identityRegistry, abi: identityRegistryAbi, args: [id] } as const;
      const read = async (functionName: "ownerOf" | "tokenURI" | "getAgentWallet") =>
        functionName === "ownerOf"
          ? market.publicClient.readContract({ ...registry, functionName })
          : functionName === "tokenURI"
            ? market.publicClient.readContract({ ...registry, functionName })
            : market.publicClient.readContract({ ...registry, functionName });
      expect(row.owner).toBe((await read("ownerOf")).toLowerCase());
      expect(row.agent_uri).toBe(await read("tokenURI"));
      const wallet = (await read("getAgentWallet")).toLowerCase();
      expect(row.agent_wallet ?? ZERO_ADDRESS).toBe(wallet);
    }
    const feedback = await rows("erc8004_feedback", "agent_id, client, feedback_index");
    expect(feedback).toHaveLength(2);
    for (const row of feedback) {
      const [value, decimals, tag1, tag2, revoked] = await market.publicClient.readContract({
        address: market.reputationRegistry,
        abi: reputationRegistryAbi,
        functionName: "readFeedback",
        args: [BigInt(row.agent_id as string), row.client as Address, BigInt(row.feedback_index as string)],
      });
      expect(row).toMatchObject({
        value: String(value),
        value_decimals: decimals,
        tag1,
        tag2,
        revoked,
      });
    }
  });

  it("follows a chain re-organisation: rows of abandoned blocks disappear, the new chain's appear", async () => {
    const snapshot = await market.testClient.snapshot();
    const doomed = await market.fund(BOB, market.address(CAROL), 9n * USDC);
    await market.deliver(ALICE, open.funded as FundedEscrow);
    await market.release(ERIN, open.delivered as FundedEscrow);
    await indexed();
    expect(await escrowRow(doomed.id)).toMatchObject({ status: "FUNDED" });
    expect(await escrowRow((open.delivered as FundedEscrow).id)).toMatchObject({ status: "RELEASED" });

    // Back to the snapshot: those three blocks never happened. A different history follows, and
    // grows longer than the abandoned one.
    expect(await market.testClient.request({ method: "evm_revert", params: [snapshot] })).toBe(true);
    market.forgetPendingState();
    (open.funded as FundedEscrow).terms.deliveredAt = 0;
    const replacement = await market.fund(CAROL, market.address(BOB), 8n * USDC);
    await market.dispute(ERIN, open.delivered as FundedEscrow);
    await market.mine(3);
    await indexed();

    expect(await escrowRow(doomed.id)).toBeUndefined();
    expect(await escrowRow(replacement.id)).toMatchObject({ status: "FUNDED" });
    expect(await escrowRow((open.funded as FundedEscrow).id)).toMatchObject({ status: "FUNDED", delivered_at: "0" });
    expect(await escrowRow((open.delivered as FundedEscrow).id)).toMatchObject({ status: "DISPUTED" });
    await expectViewsMatchChain();
  });

  it("resumes after a crash without duplicate or missing rows", async () => {
    const before = await market.fund(DAVE, market.address(ALICE), 2n * USDC);
    await indexed();
    await stack.indexer?.stop("SIGKILL");

    // The chain moves on while the indexer is down.
    await market.deliver(ALICE, before);
    await market.release(DAVE, before);
    const during = await market.fund(ERIN, market.address(BOB), 11n * USDC);
    await market.deliver(BOB, during);
    await market.dispute(ERIN, during);
    await market.resolve(during, 2_500);
    await market.mine(40);

    await stack.startIndexer();
    await market.fund(ALICE, market.address(CAROL), 1n * USDC);
    await expectViewsMatchChain();
    expect(await escrowRow(before.id)).toMatchObject({ status: "RELEASED" });
    expect(await escrowRow(during.id)).toMatchObject({ status: "RESOLVED", resolution_seller_bps: 2_500 });
  });

  it("replaces a killed indexer at once: its lock released, the next takes the schema without waiting and resumes", async () => {
    const locked = async () =>
      (
        await stack.db.query(
          `SELECT value->>'is_locked' AS locked FROM "${stack.schema}"._ponder_meta WHERE key = 'app'`,
        )
      ).rows[0]?.locked;
    const killed = stack.indexer as IndexerProcess;
    expect(await locked()).toBe("1");
    const logFile = path.join(stack.dir, "indexer.log");
    const logBefore = readFileSync(logFile, "utf8").length;

    await killed.stop("SIGKILL");
    // Ponder had no chance to unlock: without the release the next indexer would wait 25 s.
    expect(await locked()).toBe("1");
    const during = await market.fund(BOB, market.address(CAROL), 3n * USDC);
    const replacement = await killed.replace();
    stack.indexer = replacement;
    await replacement.ready();
    expect(readFileSync(logFile, "utf8").slice(logBefore)).not.toMatch(/Schema is locked/);
    expect(await locked()).toBe("1");
    expect(await indexedRow(during.id)).toMatchObject({ status: "FUNDED" });
  });
});

describe("on PGlite", () => {
  it("indexes the same chain without a Postgres server", async () => {
    const indexer = startIndexer({
      pgliteDirectory: path.join(stack.dir, "pglite"),
      schema: stack.schema,
      chainId: market.chainId,
      rpcUrl: stack.node.rpcUrl,
      deploymentsDir: stack.deploymentsDir,
      port: await freePort(),
      logFile: path.join(stack.dir, "indexer-pglite.log"),
    });
    try {
      await indexer.ready();
      const { receipt } = await market.fund(BOB, market.address(DAVE), USDC);
      // PGlite lives inside the indexer's process: ask Ponder's /status for its checkpoint.
      let indexedTo = 0n;
      for (let tries = 0; tries < 300 && indexedTo < receipt.blockNumber; tries++) {
        const status = (await (await fetch(`${indexer.url}/status`)).json()) as {
          hardhat?: { block?: { number: number } };
        };
        indexedTo = BigInt(status.hardhat?.block?.number ?? 0);
        if (indexedTo < receipt.blockNumber) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(indexedTo).toBeGreaterThanOrEqual(receipt.blockNumber);
    } finally {
      await indexer.stop();
    }
  });
});

describe("schemas of earlier indexer builds", () => {
  it("are dropped unless an indexer still holds them; the live schema stays", async () => {
    const app = (locked: number, heartbeat: number) =>
      JSON.stringify({ is_locked: locked, heartbeat_at: heartbeat, build_id: "old" });
    for (const [schema, value] of [
      ["indexer_stale0000000", app(0, Date.now())],
      ["indexer_crashed00000", app(1, Date.now() - 10 * 60_000)],
      ["indexer_running00000", app(1, Date.now())],
    ] as const) {
      await stack.db.query(`CREATE SCHEMA ${schema}`);
      await stack.db.query(`CREATE TABLE ${schema}._ponder_meta (key text PRIMARY KEY, value jsonb)`);
      await stack.db.query(`INSERT INTO ${schema}._ponder_meta VALUES ('app', $1)`, [value]);
    }
    const dropped = await dropStaleIndexerSchemas(query, stack.schema);
    expect(dropped.sort()).toEqual(["indexer_crashed00000", "indexer_stale0000000"]);
    const left = await stack.db.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'indexer%' ORDER BY 1");
    expect(left.rows.map((row) => row.nspname)).toEqual(["indexer_running00000", stack.schema].sort());
    await indexed();
  });
});

/** The escrow's row once the indexer has caught up with the chain. */
async function indexedRow(id: Hex): Promise<Row | undefined> {
  await indexed();
  return escrowRow(id);
}

async function indexedCredit(account: Address): Promise<Row | undefined> {
  await indexed();
  return (
    await stack.db.query("SELECT * FROM chain.credit WHERE chain_id = $1 AND account = $2", [
      market.chainId,
      account.toLowerCase(),
    ])
  ).rows[0];
}
