/**
 * `pnpm bench` for the money flows: how long a hosted agent waits for a buy (request → FUNDED
 * answer), a deliver and a release, each answer given only once the indexer has the block of its
 * transaction (read-your-writes); first with the local chain mining every transaction at once
 * (automine), then mining a block every second as a real chain does (Base: 2 s). Then lifecycles
 * (buy → deliver → release) per second with 20 buyer agents at once, each with its own seller.
 *
 * Everything goes through HTTP to the API as its own process (src/main.ts) against the real stack
 * of the tests: Hardhat node, embedded Postgres, the Ponder indexer. The relayer pays all gas.
 *
 * Env: BENCH_LIFECYCLES (sequential lifecycles measured per mining mode, default 20),
 * BENCH_AGENTS (concurrent buyers, default 20), BENCH_THROUGHPUT_SECONDS (default 20).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { freePort, startStack } from "@agent-marketplace/indexer/testing";

const LIFECYCLES = Number(process.env.BENCH_LIFECYCLES ?? 20);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 20);
const THROUGHPUT_SECONDS = Number(process.env.BENCH_THROUGHPUT_SECONDS ?? 20);
const PRICE_WEI = 1_000_000n; // 1 USDC
const apiDir = fileURLToPath(new URL("..", import.meta.url));

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

async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await fetch(url).catch(() => undefined))?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const stack = await startStack({ name: "money-bench" });
let server: ChildProcess | undefined;
try {
  await stack.startIndexer();
  const port = await freePort();
  server = spawn(process.execPath, ["src/main.ts"], {
    cwd: apiDir,
    env: {
      ...process.env,
      DATABASE_URL: stack.postgres.url,
      RPC_URL: stack.node.rpcUrl,
      CHAIN_ID: String(stack.deployment.chainId),
      DEPLOYMENTS_DIR: stack.deploymentsDir,
      MASTER_KEY: randomBytes(32).toString("hex"),
      PORT: String(port),
      LOG_LEVEL: "warn",
      // Limits are not what is measured: the agents all come from one IP.
      RATE_LIMIT_PER_MINUTE: "1000000000",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1000000000",
      REGISTRATIONS_PER_HOUR: "1000000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const api = `http://127.0.0.1:${port}`;
  await waitFor(`${api}/api/health`);

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

  const pairs: Pair[] = [];
  for (let i = 0; i < AGENTS; i++) pairs.push(await pair(i));
  const solo = pairs[0] as Pair;
  // Warm-up: JIT, connection pools, prepared statements.
  for (let i = 0; i < 3; i++) await lifecycle(solo);

  const lines: string[] = [];
  const automine: Record<Step, number>[] = [];
  for (let i = 0; i < LIFECYCLES; i++) automine.push(await lifecycle(solo));
  lines.push(...latencyLines("automine", automine));
  const fastRun = await throughput(pairs, THROUGHPUT_SECONDS);

  await rpc("evm_setAutomine", [false]);
  await rpc("evm_setIntervalMining", [1000]);
  const interval: Record<Step, number>[] = [];
  for (let i = 0; i < LIFECYCLES; i++) interval.push(await lifecycle(solo));
  lines.push(...latencyLines("a block every 1 s", interval));
  const slowRun = await throughput(pairs, THROUGHPUT_SECONDS);

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
} finally {
  server?.kill("SIGTERM");
  await stack.stop();
}
