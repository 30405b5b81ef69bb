/**
 * `pnpm bench` for the indexer: prints figures (it asserts nothing about speed) measured against the
 * real parts of test/stack.ts (Hardhat node, embedded Postgres, `ponder start` as a child process).
 *
 * 1. Lag. The node mines a block every second; buyers fund escrows, a few per block. For each, the
 *    time from its receipt first being served over JSON-RPC to its row first being visible in
 *    chain.escrow, both polled every 5 ms. p50, p99 and max; the target is p99 under 1 s.
 * 2. Backfill. The lag indexer is stopped and the chain is given BENCH_ESCROWS complete bounties
 *    (fund; assignSeller by the operator; deliver; release: 4 escrow events each), phase by phase,
 *    hundreds of transactions per block (signed by the node for its dev accounts, explicit nonces),
 *    one `evm_mine` per batch, then Ponder's finality depth of empty blocks. A new indexer on a
 *    schema never used then starts. Timed: Ponder's backfill from its own log ('Started' to
 *    'Completed backfill indexing'), and process start to /ready (with, for comparison, the lag
 *    indexer's start on the empty chain). It must then reach the head with every event indexed.
 *
 * Env: BENCH_LAG_SAMPLES (default 150), BENCH_ESCROWS (default 3000: 10,000 took
 * 3 of the 10 minutes `pnpm bench` may take on 2 shared cores); KEEP_TEST_DATA=1 keeps the
 * logs (hardhat-node.log, indexer.log, indexer-backfill.log) in the stack's temporary folder.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { agentEscrowAbi, type EscrowTerms, escrowIdOf, escrowRef, mockUsdcAbi } from "@agent-marketplace/contracts";
import { type Abi, type ContractFunctionArgs, encodeFunctionData, type Hex, keccak256, maxUint256, toHex } from "viem";
import { sampleMemory } from "../../bench/memory.ts";
import { type Cell, writeSection } from "../../bench/results.ts";
import { waitForIndexedBlock } from "../lib/checkpoint.ts";
import { ZERO_ADDRESS } from "../lib/escrow-mapping.ts";
import { startIndexer } from "../lib/indexer-process.ts";
import { DAY, Market, ROLE, USDC } from "../test/market.ts";
import { freePort, type Stack, startStack } from "../test/stack.ts";

const LAG_SAMPLES = envCount("BENCH_LAG_SAMPLES", 150);
const ESCROWS = envCount("BENCH_ESCROWS", 3_000);

/** Dev accounts that fund escrows, and those that sell (no USDC needed). */
const BUYERS = [3, 4, 5, 6, 7, 8, 9];
const SELLERS = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
const AMOUNT = USDC;
const DEADLINE_IN = 7 * DAY;
const DISPUTE_WINDOW = DAY;
const DELIVERABLE_HASH = keccak256(toHex("bench work"));
const EVENTS_PER_BOUNTY = 4;

/** Lag: the node's block interval, escrows funded per block, how often to poll, when to give up. */
const BLOCK_INTERVAL_MS = 1_000;
const FUNDS_PER_BLOCK = 3;
const POLL_MS = 5;
const SAMPLE_TIMEOUT_MS = 30_000;

/** Backfill: gas limit of every generated transaction (they use 35-90k), and waiting limits. */
const TX_GAS = 150_000n;
const READY_TIMEOUT_MS = 30 * 60_000;
const CATCH_UP_TIMEOUT_MS = 60_000;
/**
 * Ponder treats the last 30 blocks of chain 31337 (and of Base) as not final and indexes them live,
 * one block at a time, after /ready: empty blocks mined after the data keep it all in the backfill.
 */
const PONDER_FINALITY_BLOCKS = 30;

/** Ponder's log lines around the backfill, each starting with the time as HH:MM:SS.mmm. */
const BACKFILL_STARTED = "Started backfill indexing";
const BACKFILL_COMPLETED = "Completed backfill indexing";

function envCount(name: string, fallback: number): number {
  const value = process.env[name] ? Number(process.env[name]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const milliseconds = (ms: number) => `${Math.round(ms)} ms`;
const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;
const count = (n: number) => n.toLocaleString("en-US");
const perSecond = (events: number, ms: number) => `${count(Math.round((events * 1_000) / ms))} events/s`;

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

interface RpcRequest {
  method: string;
  params: unknown[];
}

/** One JSON-RPC batch request; the results in request order. */
async function rpcBatch(url: string, requests: RpcRequest[]): Promise<unknown[]> {
  const body = requests.map((request, id) => ({ jsonrpc: "2.0", id, ...request }));
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answers = (await response.json()) as { id: number; result?: unknown; error?: { message: string } }[];
  return answers
    .sort((a, b) => a.id - b.id)
    .map((answer) => {
      if (answer.error) throw new Error(`${requests[answer.id]?.method}: ${answer.error.message}`);
      return answer.result;
    });
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  return (await rpcBatch(url, [{ method, params }]))[0];
}

/** A transaction the node signs for one of its dev accounts (nonce: the next pending one if absent). */
interface Call {
  from: number;
  data: Hex;
}

class Bench {
  readonly stack: Stack;
  readonly market: Market;
  readonly url: string;

  constructor(stack: Stack) {
    this.stack = stack;
    this.market = new Market(stack.node.rpcUrl, stack.deployment);
    this.url = stack.node.rpcUrl;
  }

  private send(call: Call, nonce?: number): RpcRequest {
    const tx = { from: this.market.address(call.from), to: this.market.escrow, data: call.data, gas: toHex(TX_GAS) };
    return { method: "eth_sendTransaction", params: [nonce === undefined ? tx : { ...tx, nonce: toHex(nonce) }] };
  }

  /** Each buyer gets the USDC it needs and approves the escrow (automine is still on). */
  async fundBuyers(escrowsPerBuyer: number): Promise<void> {
    for (const buyer of BUYERS) {
      const address = this.market.address(buyer);
      await this.market.send(buyer, this.market.usdc, mockUsdcAbi, "mint", [address, AMOUNT * BigInt(escrowsPerBuyer)]);
      await this.market.send(buyer, this.market.usdc, mockUsdcAbi, "approve", [this.market.escrow, maxUint256]);
    }
  }

  /** Lag samples in ms: receipt available → row in chain.escrow, with a block every second. */
  async measureLag(samples: number): Promise<number[]> {
    const deadline = (await this.market.now()) + DEADLINE_IN;
    await rpc(this.url, "evm_setAutomine", [false]);
    await rpc(this.url, "evm_setIntervalMining", [BLOCK_INTERVAL_MS]);
    const lags: number[] = [];
    for (let round = 0; lags.length < samples; round++) {
      const escrows = Array.from({ length: Math.min(FUNDS_PER_BLOCK, samples - lags.length) }, (_, k) => {
        const slot = round * FUNDS_PER_BLOCK + k;
        const buyer = BUYERS[slot % BUYERS.length] as number;
        const seller = this.market.address(SELLERS[slot % SELLERS.length] as number);
        const ref = escrowRef(randomUUID());
        const id = escrowIdOf(this.market.address(buyer), ref);
        const args = [ref, seller, AMOUNT, deadline, DISPUTE_WINDOW] as const;
        return {
          id,
          call: { from: buyer, data: encodeFunctionData({ abi: agentEscrowAbi, functionName: "fund", args }) },
        };
      });
      const hashes = (await rpcBatch(
        this.url,
        escrows.map(({ call }) => this.send(call)),
      )) as Hex[];
      const timed = await this.timeIndexing(escrows.map(({ id }, k) => ({ id, hash: hashes[k] as Hex })));
      lags.push(...timed);
    }
    await rpc(this.url, "evm_setIntervalMining", [0]);
    return lags;
  }

  /** Polls the receipts (in sending order) and then the rows of these escrows; returns each lag. */
  private async timeIndexing(sent: { id: Hex; hash: Hex }[]): Promise<number[]> {
    const samples = sent.map((s) => ({ ...s, receiptAt: 0, rowAt: 0 }));
    const until = performance.now() + SAMPLE_TIMEOUT_MS;
    while (samples.some((s) => s.rowAt === 0)) {
      if (performance.now() > until) throw new Error(`escrows not indexed within ${SAMPLE_TIMEOUT_MS} ms`);
      for (const sample of samples.filter((s) => s.receiptAt === 0)) {
        const receipt = (await rpc(this.url, "eth_getTransactionReceipt", [sample.hash])) as { status: Hex } | null;
        if (!receipt) break;
        if (receipt.status !== "0x1") throw new Error(`fund reverted: ${sample.hash}`);
        sample.receiptAt = performance.now();
      }
      const waiting = samples.filter((s) => s.receiptAt !== 0 && s.rowAt === 0);
      if (waiting.length > 0) {
        const { rows } = await this.stack.db.query("SELECT id FROM chain.escrow WHERE chain_id = $1 AND id = ANY($2)", [
          this.market.chainId,
          waiting.map((s) => s.id),
        ]);
        const now = performance.now();
        for (const sample of waiting) if (rows.some((row) => row.id === sample.id)) sample.rowAt = now;
      }
      await sleep(POLL_MS);
    }
    return samples.map((s) => s.rowAt - s.receiptAt);
  }

  /**
   * `bounties` complete bounties on chain, phase by phase (all funds, assigns, delivers, releases),
   * as many transactions per block as its gas limit takes. Returns the first block used.
   */
  async generateBounties(bounties: number): Promise<bigint> {
    const { gasLimit, number } = await this.market.publicClient.getBlock();
    const perBlock = Number(gasLimit / TX_GAS);
    const feeBps = await this.market.publicClient.readContract({
      address: this.market.escrow,
      abi: agentEscrowAbi,
      functionName: "feeBps",
    });
    const fundDeadline = (await this.market.now()) + DEADLINE_IN;
    const escrows = Array.from({ length: bounties }, (_, i) => {
      const buyer = BUYERS[i % BUYERS.length] as number;
      const terms: EscrowTerms = {
        buyer: this.market.address(buyer),
        seller: ZERO_ADDRESS,
        amount: AMOUNT,
        deadline: fundDeadline,
        disputeWindow: DISPUTE_WINDOW,
        deliveredAt: 0,
        feeBps,
      };
      const ref = escrowRef(randomUUID());
      const id = escrowIdOf(terms.buyer, ref);
      return { ref, id, buyer, seller: SELLERS[i % SELLERS.length] as number, terms };
    });
    const call = <name extends "fund" | "assignSeller" | "deliver" | "release">(
      from: number,
      functionName: name,
      args: ContractFunctionArgs<typeof agentEscrowAbi, "nonpayable", name>,
    ): Call => ({
      from,
      data: encodeFunctionData({
        abi: agentEscrowAbi as Abi,
        functionName: functionName as string,
        args: args as readonly unknown[],
      }),
    });

    await this.minePhase(escrows, perBlock, (e) =>
      call(e.buyer, "fund", [e.ref, ZERO_ADDRESS, AMOUNT, fundDeadline, DISPUTE_WINDOW]),
    );
    const assignDeadline = (await this.market.now()) + DEADLINE_IN;
    await this.minePhase(
      escrows,
      perBlock,
      (e) => call(ROLE.operator, "assignSeller", [e.id, e.terms, this.market.address(e.seller), assignDeadline]),
      (e) => {
        e.terms = { ...e.terms, seller: this.market.address(e.seller), deadline: assignDeadline };
      },
    );
    await this.minePhase(
      escrows,
      perBlock,
      (e) => call(e.seller, "deliver", [e.id, e.terms, DELIVERABLE_HASH]),
      (e, timestamp) => {
        e.terms = { ...e.terms, deliveredAt: timestamp };
      },
    );
    await this.minePhase(escrows, perBlock, (e) => call(e.buyer, "release", [e.id, e.terms]));
    return number + 1n;
  }

  /** Sends `items` in batches of `perBlock` with explicit nonces, one `evm_mine` per batch. */
  private async minePhase<T>(
    items: T[],
    perBlock: number,
    callOf: (item: T) => Call,
    onMined?: (item: T, blockTimestamp: number) => void,
  ): Promise<void> {
    const nonces = new Map<number, number>();
    for (let start = 0; start < items.length; start += perBlock) {
      const batch = items.slice(start, start + perBlock);
      const calls = batch.map(callOf);
      const senders = [...new Set(calls.map((c) => c.from))].filter((from) => !nonces.has(from));
      const counts = await rpcBatch(
        this.url,
        senders.map((from) => ({ method: "eth_getTransactionCount", params: [this.market.address(from), "pending"] })),
      );
      senders.forEach((from, k) => {
        nonces.set(from, Number(counts[k]));
      });
      await rpcBatch(
        this.url,
        calls.map((c) => {
          const nonce = nonces.get(c.from) as number;
          nonces.set(c.from, nonce + 1);
          return this.send(c, nonce);
        }),
      );
      await rpc(this.url, "evm_mine");
      const block = await this.market.publicClient.getBlock();
      if (block.transactions.length !== batch.length) {
        throw new Error(`block ${block.number} holds ${block.transactions.length} of ${batch.length} transactions`);
      }
      for (const item of batch) onMined?.(item, Number(block.timestamp));
    }
  }

  /** Escrow-contract logs from `fromBlock` to the head (raw JSON-RPC: viem caps answers at 10 MB). */
  async escrowLogsSince(fromBlock: bigint): Promise<number> {
    const filter = { address: this.market.escrow, fromBlock: toHex(fromBlock), toBlock: "latest" };
    return ((await rpc(this.url, "eth_getLogs", [filter])) as unknown[]).length;
  }
}

/** Milliseconds since local midnight: Ponder's log shows local times of day (HH:MM:SS.mmm). */
function timeOfDay(date: Date): number {
  return ((date.getHours() * 60 + date.getMinutes()) * 60 + date.getSeconds()) * 1_000 + date.getMilliseconds();
}

/** The time of day of the first log line holding `phrase`. */
function loggedAt(log: string, phrase: string): number | undefined {
  const line = log.split("\n").find((l) => l.includes(phrase));
  const match = line?.match(/(\d\d):(\d\d):(\d\d)\.(\d{3})/);
  if (!match) return undefined;
  const [h, m, s, ms] = match.slice(1).map(Number) as [number, number, number, number];
  return ((h * 60 + m) * 60 + s) * 1_000 + ms;
}

/** `to - from` for times of day, across midnight too. */
const between = (from: number, to: number) => (to - from + DAY * 1_000) % (DAY * 1_000);

/** Rows of the report's indexer table: figure, value, workload. */
const reported: Cell[][] = [];

async function run(stack: Stack): Promise<void> {
  const bench = new Bench(stack);
  console.log(
    `indexer benchmark: Hardhat node, embedded Postgres, ponder start (polls every 100 ms); ${availableParallelism()} CPUs`,
  );
  let started = performance.now();
  await stack.startIndexer();
  const emptyStartUpMs = performance.now() - started;
  await bench.fundBuyers(Math.ceil((LAG_SAMPLES + ESCROWS) / BUYERS.length));

  const lags = (await bench.measureLag(LAG_SAMPLES)).sort((a, b) => a - b);
  console.log(
    `indexer lag, receipt → row in chain.escrow, blocks every ${seconds(BLOCK_INTERVAL_MS)}: n=${lags.length}, ` +
      `p50 ${milliseconds(percentile(lags, 50))}, p99 ${milliseconds(percentile(lags, 99))}, ` +
      `max ${milliseconds(lags.at(-1) as number)}`,
  );
  const lagWorkload = `${lags.length} fund transactions, ${FUNDS_PER_BLOCK} per block, a block every ${seconds(BLOCK_INTERVAL_MS)}`;
  reported.push(
    ["lag p50, receipt → row in chain.escrow", milliseconds(percentile(lags, 50)), lagWorkload],
    ["lag p99", milliseconds(percentile(lags, 99)), lagWorkload],
    ["lag max", milliseconds(lags.at(-1) as number), lagWorkload],
  );
  await stack.indexer?.stop();

  started = performance.now();
  const firstBlock = await bench.generateBounties(ESCROWS);
  const generationMs = performance.now() - started;
  const lastBlock = await bench.market.publicClient.getBlockNumber();
  await bench.market.mine(PONDER_FINALITY_BLOCKS);
  const events = await bench.escrowLogsSince(firstBlock);
  const summary = `${count(events)} events (${count(ESCROWS)} escrows)`;
  console.log(
    `generated ${summary} in ${count(Number(lastBlock - firstBlock + 1n))} blocks in ${seconds(generationMs)}, ` +
      `then ${PONDER_FINALITY_BLOCKS} empty blocks (Ponder's finality depth)`,
  );
  if (events !== ESCROWS * EVENTS_PER_BOUNTY) throw new Error(`expected ${ESCROWS * EVENTS_PER_BOUNTY} escrow events`);

  const { readyMs, spawnedAt, log } = await backfill(bench, firstBlock, events);
  const backfillStarted = loggedAt(log, BACKFILL_STARTED);
  const backfillCompleted = loggedAt(log, BACKFILL_COMPLETED);
  if (backfillStarted !== undefined && backfillCompleted !== undefined) {
    const backfillMs = between(backfillStarted, backfillCompleted);
    const startUpMs = between(spawnedAt, backfillStarted);
    console.log(
      `indexer backfill: ${summary} in ${seconds(backfillMs)} → ${perSecond(events, backfillMs)} ` +
        `(Ponder's log, '${BACKFILL_STARTED}' → '${BACKFILL_COMPLETED}'; not included: start-up ` +
        `${seconds(startUpMs)} before it, indexes and views ${seconds(readyMs - startUpMs - backfillMs)} after it)`,
    );
    reported.push([
      "backfill ('Started' → 'Completed backfill indexing' in Ponder's log)",
      `${seconds(backfillMs)}, ${perSecond(events, backfillMs)}`,
      `a fresh indexer over ${summary}`,
    ]);
  }
  console.log(
    `indexer backfill, process start → /ready: ${seconds(readyMs)} → ${perSecond(events, readyMs)} ` +
      `(the same start on the empty chain: ${seconds(emptyStartUpMs)})`,
  );
  reported.push(
    ["backfill, process start → /ready", `${seconds(readyMs)}, ${perSecond(events, readyMs)}`, `the same, ${summary}`],
    ["start → /ready on the empty chain", seconds(emptyStartUpMs), "the deployment only"],
  );
}

/**
 * Starts an indexer on a schema never used, waits for /ready, checks that it reached the head and
 * indexed `events` escrow events from `firstBlock` on. Returns the time to /ready, the time of day it
 * was started at, and its log.
 */
async function backfill(bench: Bench, firstBlock: bigint, events: number) {
  const { stack, market } = bench;
  const schema = `${stack.schema}_backfill`;
  const logFile = path.join(stack.dir, "indexer-backfill.log");
  const spawnedAt = timeOfDay(new Date());
  const head = await market.publicClient.getBlockNumber();
  const started = performance.now();
  stack.indexer = startIndexer({
    databaseUrl: stack.postgres.url,
    schema,
    chainId: market.chainId,
    rpcUrl: stack.node.rpcUrl,
    deploymentsDir: stack.deploymentsDir,
    port: await freePort(),
    logFile,
  });
  await stack.indexer.ready(READY_TIMEOUT_MS);
  const readyMs = performance.now() - started;

  const query = (sql: string) => stack.db.query(sql);
  if (!(await waitForIndexedBlock(query, market.chainId, head, { timeoutMs: CATCH_UP_TIMEOUT_MS }))) {
    throw new Error(`the backfill indexer did not reach block ${head}`);
  }
  const { rows } = await stack.db.query(
    `SELECT count(*)::int AS n FROM "${schema}".escrow_event WHERE block_number >= $1`,
    [firstBlock],
  );
  if (rows[0]?.n !== events) throw new Error(`the backfill indexed ${rows[0]?.n} of ${events} escrow events`);
  return { readyMs, spawnedAt, log: readFileSync(logFile, "utf8") };
}

const started = performance.now();
const stack = await startStack({ name: "indexer-bench" });
const memory = sampleMemory();
try {
  await run(stack);
  const memoryTable = memory.stop(
    `indexer benchmark: lag samples, then ${count(ESCROWS)} bounties generated and backfilled by a second indexer`,
  );
  writeSection("3-indexer", {
    order: 3,
    title: "Indexer (Ponder) alone",
    durationMs: performance.now() - started,
    tables: [
      {
        title: "Indexer lag and backfill",
        workload: "Hardhat node, embedded Postgres, `ponder start` polling every 100 ms; workload per row",
        columns: ["figure", "value", "workload"],
        rows: reported,
      },
      memoryTable,
    ],
  });
} catch (error) {
  console.error(`benchmark failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  await stack.stop();
}
