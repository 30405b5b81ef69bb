/**
 * `pnpm bench` for the money flows: how long a hosted agent waits for a buy (request → FUNDED
 * answer), a deliver and a release, each answer given only once the indexer has the block of its
 * transaction (read-your-writes); first with the local chain mining every transaction at once
 * (automine), then mining a block every second as a real chain does (Base: 2 s). Then lifecycles
 * (buy → deliver → release) per second with 50 buyer agents at once, each with its own seller, with
 * the indexer's lag under that load. Also buys, then delivers, alone from 50 agents at once for a
 * fixed time (requests per second, p50/p99), next to a bare Hono route under the same client.
 *
 * Everything goes through HTTP to the API as its own process (src/main.ts) against the real stack
 * of the tests: Hardhat node, embedded Postgres, the Ponder indexer. The relayer pays all gas.
 *
 * Env: BENCH_LIFECYCLES (sequential lifecycles measured per mining mode, default 10),
 * BENCH_AGENTS (concurrent buyers, default 50), BENCH_THROUGHPUT_SECONDS (default 30),
 * BENCH_STEP_SECONDS (buys, then delivers, then the bare route, default 10).
 */
import { availableParallelism } from "node:os";
import { startStack } from "@agent-marketplace/indexer/testing";
import { sampleMemory } from "../../bench/memory.ts";
import { type Cell, writeSection } from "../../bench/results.ts";
import { type Server, startApi, startHello } from "./api-process.ts";
import { concurrentLoad, type LoadFigures } from "./concurrent-load.ts";
import { type LagFigures, monitorLag } from "./lag-monitor.ts";

const LIFECYCLES = Number(process.env.BENCH_LIFECYCLES ?? 10);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 30);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 10);
const PRICE_WEI = 1_000_000n; // 1 USDC

interface Agent {
  id: string;
  key: string;
  wallet: string;
}

interface Pair {
  buyer: Agent;
  seller: Agent;
  listingId: string;
}

type Step = "buy" | "deliver" | "release";

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const started = performance.now();
const stack = await startStack({ name: "money-bench" });
const memory = sampleMemory();
const servers: Server[] = [];
try {
  await stack.startIndexer();
  const server = await startApi(stack);
  servers.push(server);
  const api = server.url;
  const hello = await startHello();
  servers.push(hello);

  async function call(method: string, path: string, body?: unknown, key?: string) {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: {
        ...(body !== undefined && { "content-type": "application/json" }),
        ...(key && { authorization: `Bearer ${key}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  }

  async function rpc(method: string, params: unknown[]) {
    const response = await fetch(stack.node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const answer = (await response.json()) as { error?: { message: string } };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  }

  async function hosted(name: string, usdcWei = 0n): Promise<Agent> {
    const registered = (await call("POST", "/api/agents/register", { name, hosted: true })) as {
      agent: { id: string; wallet_address: string };
      api_key: string;
    };
    if (usdcWei > 0n) {
      await call("POST", "/api/dev/faucet", { address: registered.agent.wallet_address, usdc_wei: usdcWei.toString() });
    }
    return { id: registered.agent.id, key: registered.api_key, wallet: registered.agent.wallet_address };
  }

  /** One buyer and one seller with a FIXED listing; the buyer holds enough for every lifecycle. */
  async function pair(i: number): Promise<Pair> {
    const seller = await hosted(`bench seller ${i}`);
    const buyer = await hosted(`bench buyer ${i}`, 10_000n * PRICE_WEI);
    const listing = (await call(
      "POST",
      "/api/listings",
      {
        agent_id: seller.id,
        title: `Benchmark service ${i}`,
        description: "Answers within the hour",
        category: "coding",
        price_wei: PRICE_WEI.toString(),
      },
      seller.key,
    )) as { id: string };
    return { buyer, seller, listingId: listing.id };
  }

  /** buy → deliver → release; the time of each answer in ms. */
  async function lifecycle(p: Pair): Promise<Record<Step, number>> {
    let start = performance.now();
    const bought = (await call("POST", `/api/listings/${p.listingId}/buy`, {}, p.buyer.key)) as {
      transaction_id: string;
      state: string;
    };
    if (bought.state !== "FUNDED") throw new Error(`buy answered state ${bought.state}`);
    const buy = performance.now() - start;
    start = performance.now();
    await call("POST", `/api/transactions/${bought.transaction_id}/deliver`, { deliverable: "the work" }, p.seller.key);
    const deliver = performance.now() - start;
    start = performance.now();
    const released = (await call("POST", `/api/transactions/${bought.transaction_id}/release`, {}, p.buyer.key)) as {
      state: string;
    };
    if (released.state !== "RELEASED") throw new Error(`release answered state ${released.state}`);
    return { buy, deliver, release: performance.now() - start };
  }

  function latencyLines(mode: string, samples: Record<Step, number>[]): string[] {
    return (["buy", "deliver", "release"] as const).map((step) => {
      const sorted = samples.map((sample) => sample[step]).sort((a, b) => a - b);
      const ms = (value: number) => `${Math.round(value)}`.padStart(5);
      return `${mode.padEnd(24)} ${step.padEnd(8)} p50 ${ms(percentile(sorted, 50))} ms  p95 ${ms(percentile(sorted, 95))} ms  max ${ms(sorted.at(-1) ?? Number.NaN)} ms`;
    });
  }

  /** Every pair runs lifecycles back to back for `seconds`; lifecycles completed per second. */
  async function throughput(pairs: Pair[], seconds: number) {
    const until = performance.now() + seconds * 1000;
    const started = performance.now();
    let completed = 0;
    await Promise.all(
      pairs.map(async (p) => {
        while (performance.now() < until) {
          await lifecycle(p);
          completed++;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    return { completed, elapsed, perSecond: completed / elapsed };
  }

  /** Every buyer buys from its own seller's listing, again and again; the escrows bought per pair. */
  async function concurrentBuys(pairs: Pair[], seconds: number) {
    const bought: string[][] = pairs.map(() => []);
    const figures = await concurrentLoad(pairs.length, seconds, async (i) => {
      const p = pairs[i] as Pair;
      const answer = await call("POST", `/api/listings/${p.listingId}/buy`, {}, p.buyer.key);
      if (answer.state !== "FUNDED") throw new Error(`buy answered state ${answer.state}`);
      bought[i]?.push(answer.transaction_id as string);
      return true;
    });
    return { figures, bought };
  }

  /** Every seller delivers what its buyer bought, until done or `seconds` are up. */
  async function concurrentDelivers(pairs: Pair[], bought: string[][], seconds: number) {
    return concurrentLoad(pairs.length, seconds, (i) => {
      const id = bought[i]?.shift();
      if (id === undefined) return false;
      return call("POST", `/api/transactions/${id}/deliver`, { deliverable: "the work" }, pairs[i]?.seller.key).then(
        () => true,
      );
    });
  }

  const lag = () => monitorLag(stack.node.rpcUrl, (sql) => stack.db.query(sql), stack.deployment.chainId);

  const pairs: Pair[] = [];
  for (let i = 0; i < AGENTS; i++) pairs.push(await pair(i));
  const solo = pairs[0] as Pair;
  // Warm-up: JIT, connection pools, prepared statements.
  for (let i = 0; i < 3; i++) await lifecycle(solo);

  const lines: string[] = [];
  const automine: Record<Step, number>[] = [];
  for (let i = 0; i < LIFECYCLES; i++) automine.push(await lifecycle(solo));
  lines.push(...latencyLines("automine", automine));

  const buys = await concurrentBuys(pairs, STEP_SECONDS);
  const delivers = await concurrentDelivers(pairs, buys.bought, STEP_SECONDS);
  const bare = await concurrentLoad(pairs.length, STEP_SECONDS, async () => {
    const response = await fetch(`${hello.url}/hello`);
    await response.arrayBuffer();
    return response.ok;
  });

  let monitor = lag();
  const fastRun = await throughput(pairs, THROUGHPUT_SECONDS);
  const fastLag = await monitor.stop();

  await rpc("evm_setAutomine", [false]);
  await rpc("evm_setIntervalMining", [1000]);
  const interval: Record<Step, number>[] = [];
  for (let i = 0; i < LIFECYCLES; i++) interval.push(await lifecycle(solo));
  lines.push(...latencyLines("a block every 1 s", interval));
  monitor = lag();
  const slowRun = await throughput(pairs, THROUGHPUT_SECONDS);
  const slowLag = await monitor.stop();

  console.log(
    `\nmoney-flow benchmark: hosted agents over HTTP, answers after the indexer has the block, ${LIFECYCLES} sequential lifecycles per mode, ${availableParallelism()} CPUs shared by chain, indexer, Postgres, API and client`,
  );
  for (const line of lines) console.log(line);
  for (const [mode, run] of [
    ["automine", fastRun],
    ["a block every 1 s", slowRun],
  ] as const) {
    console.log(
      `${mode.padEnd(24)} ${AGENTS} concurrent buyers: ${run.completed} lifecycles in ${run.elapsed.toFixed(1)} s = ${run.perSecond.toFixed(1)} lifecycles/s (${(run.perSecond * 3).toFixed(1)} relayed transactions/s)`,
    );
  }
  const stepLine = (name: string, figures: LoadFigures) =>
    `${name.padEnd(40)} ${figures.requestsPerSecond.toFixed(1).padStart(8)} req/s  p50 ${String(figures.p50).padStart(5)} ms  p99 ${String(figures.p99).padStart(5)} ms  (${figures.requests} in ${figures.seconds.toFixed(1)} s)`;
  console.log(`${AGENTS} concurrent connections, automine, up to ${STEP_SECONDS} s each:`);
  console.log(stepLine("bare Hono GET /hello", bare));
  console.log(stepLine("POST /api/listings/:id/buy", buys.figures));
  console.log(stepLine("POST /api/transactions/:id/deliver", delivers));
  const lagLine = (mode: string, figures: LagFigures) =>
    `${mode.padEnd(24)} indexer lag under ${AGENTS} looping buyers: ${figures.blocks} blocks, head → indexed p50 ${figures.msP50} ms, p99 ${figures.msP99} ms, max ${figures.msMax} ms; blocks behind p50 ${figures.behindP50}, p99 ${figures.behindP99}, max ${figures.behindMax}`;
  console.log(lagLine("automine", fastLag));
  console.log(lagLine("a block every 1 s", slowLag));

  const stepRow = (name: string, figures: LoadFigures): Cell[] => [
    name,
    Math.round(figures.requestsPerSecond * 10) / 10,
    figures.p50,
    figures.p99,
    `${(figures.requestsPerSecond / bare.requestsPerSecond).toFixed(3)}×`,
    `${figures.requests} in ${figures.seconds.toFixed(1)} s`,
  ];
  const lagRow = (mode: string, figures: LagFigures): Cell[] => [
    mode,
    figures.blocks,
    figures.msP50,
    figures.msP99,
    figures.msMax,
    figures.behindP50,
    figures.behindP99,
    figures.behindMax,
  ];
  const lifecycleRow = (mode: string, run: { completed: number; elapsed: number; perSecond: number }): Cell[] => [
    mode,
    Math.round(run.perSecond * 10) / 10,
    run.completed,
    `${run.elapsed.toFixed(1)} s`,
  ];
  const load = `${AGENTS} hosted buyers, each with its own seller and FIXED listing, looping buy → deliver → release for ${THROUGHPUT_SECONDS} s`;
  writeSection("4-money", {
    order: 4,
    title: "Money flows through the API (hosted agents, relayer pays gas)",
    durationMs: performance.now() - started,
    tables: [
      {
        title: "Buy and deliver throughput, next to a bare Hono route",
        workload: `${AGENTS} concurrent connections (one per agent, Node fetch), automine; buy: every buyer buys from its own seller's listing again and again for ${STEP_SECONDS} s, each answer FUNDED once the indexer has the block; deliver: every seller then delivers those purchases until done or ${STEP_SECONDS} s; bare route: the same client`,
        columns: ["request", "req/s", "p50 ms", "p99 ms", "of bare", "answered"],
        rows: [
          stepRow("bare Hono GET /hello", bare),
          stepRow("POST /api/listings/:id/buy", buys.figures),
          stepRow("POST /api/transactions/:id/deliver", delivers),
        ],
      },
      {
        title: "Full lifecycles per second",
        workload: load,
        columns: ["mining", "lifecycles/s", "lifecycles", "in"],
        rows: [lifecycleRow("automine", fastRun), lifecycleRow("a block every 1 s", slowRun)],
      },
      {
        title: "Indexer lag under the money load",
        workload: `${load}; eth_blockNumber and Ponder's checkpoint polled every 20 ms: time from a block first being the head (its receipts served) to the indexer first having it, and blocks behind the head at each poll`,
        columns: [
          "mining",
          "blocks",
          "lag p50 ms",
          "lag p99 ms",
          "lag max ms",
          "behind p50",
          "behind p99",
          "behind max",
        ],
        rows: [lagRow("automine", fastLag), lagRow("a block every 1 s", slowLag)],
      },
      {
        title: "Latency of one agent alone",
        workload: `${LIFECYCLES} sequential lifecycles of one hosted buyer per mining mode, after 3 warm-up lifecycles`,
        columns: ["mining and step", "p50 / p95 / max"],
        rows: lines.map((line) => {
          const [head, figures] = line.split(" p50 ");
          return [(head ?? "").replace(/\s+/g, " ").trim(), `p50 ${figures?.replace(/\s+/g, " ").trim()}`];
        }),
      },
      memory.stop(
        `money-flow benchmark: ${AGENTS * 2} hosted agents registered, sequential lifecycles, buys and delivers, lifecycles looping, in both mining modes`,
      ),
    ],
  });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await stack.stop();
}
