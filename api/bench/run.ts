/**
 * `pnpm bench` for the API: requests per second and p50/p99 latency of the hot reads with 50
 * concurrent connections, next to a bare Hono "hello" route measured in the same run (the ratio is
 * the figure). The API runs as its own process (src/main.ts) against the real stack of the tests
 * (Hardhat node, embedded Postgres, indexer), seeded with 10,000 listings of 100 agents. Browse is
 * measured as served (the API's 1 s read cache) and again by an API with the cache off, so the rows
 * show both what an agent sees and what the SQL costs.
 *
 * Env: BENCH_SECONDS per endpoint (default 10) after BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS (default 50), BENCH_LISTINGS
 * (default 10000), BENCH_CPU_PROFILE (a folder for a CPU profile of the API). Targets: browse p99 under 25 ms, and at least a third of the bare route's throughput.
 */
import { availableParallelism } from "node:os";
import { startStack } from "@agent-marketplace/indexer/testing";
import autocannon from "autocannon";
import { sql } from "drizzle-orm";
import { sampleMemory } from "../../bench/memory.ts";
import { writeSection } from "../../bench/results.ts";
import { generateApiKey, hashApiKey } from "../src/auth/api-keys.ts";
import { createDatabase } from "../src/db/client.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
import { type Server, startApi, startHello } from "./api-process.ts";
import { seedListings } from "./seed.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
const AGENTS = 100;
const KEYWORD = "solidity";

interface Figures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Measures `url` after a warm-up of WARMUP_SECONDS (JIT, connection pool, caches) at the same load. */
async function measure(name: string, url: string, headers: Record<string, string> = {}): Promise<Figures> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_SECONDS, headers });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  const errors = result.errors + result.timeouts + result.non2xx;
  return { name, requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

const started = performance.now();
const stack = await startStack({ name: "api-bench" });
const memory = sampleMemory();
const servers: Server[] = [];
try {
  await stack.startIndexer();
  const db = createDatabase(stack.postgres.url, { max: 4 });
  await migrateDatabase(db);

  const agentIds = await seedListings(db, { agents: AGENTS, listings: LISTINGS });
  const apiKey = generateApiKey();
  await db.execute(sql`INSERT INTO app.api_keys (agent_id, key_hash) VALUES (${agentIds[0]}, ${hashApiKey(apiKey)})`);
  await db.$client.end();

  const hello = await startHello();
  servers.push(hello);
  const keywordBrowse = `/api/listings?keyword=${KEYWORD}&category=coding`;
  const categoryBrowse = "/api/listings?category=coding";

  // The default API: browse answers come from its read cache (BROWSE_CACHE_MS, 1 s).
  const cached = await startApi(stack, {}, true);
  servers.push(cached);
  const runs = [
    await measure("bare Hono GET /hello", `${hello.url}/hello`),
    await measure(`GET ${keywordBrowse}`, `${cached.url}${keywordBrowse}`),
    await measure(`GET ${categoryBrowse}`, `${cached.url}${categoryBrowse}`),
    await measure("GET /api/agents/me", `${cached.url}/api/agents/me`, { authorization: `Bearer ${apiKey}` }),
  ];
  await cached.stop();
  // The same browses with the cache off: every request runs its SQL.
  const uncached = await startApi(stack, { BROWSE_CACHE_MS: "0" }, true);
  servers.push(uncached);
  runs.push(
    await measure(`GET ${keywordBrowse} (cache off)`, `${uncached.url}${keywordBrowse}`),
    await measure(`GET ${categoryBrowse} (cache off)`, `${uncached.url}${categoryBrowse}`),
  );
  const bare = runs[0]?.requestsPerSecond ?? 1;
  console.log(
    `\napi benchmark: ${LISTINGS.toLocaleString("en-US")} listings, ${CONNECTIONS} connections, ${SECONDS} s each after a ${WARMUP_SECONDS} s warm-up, ${availableParallelism()} CPUs (API and load generator share them)`,
  );
  for (const run of runs) {
    console.log(
      `${run.name.padEnd(58)} ${Math.round(run.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s  p50 ${String(run.p50).padStart(3)} ms  p99 ${String(run.p99).padStart(3)} ms  ${(run.requestsPerSecond / bare).toFixed(2)}× bare${run.errors ? `  ${run.errors} errors` : ""}`,
    );
  }
  const workload = `${LISTINGS.toLocaleString("en-US")} listings of ${AGENTS} agents, ${CONNECTIONS} concurrent connections (autocannon), ${SECONDS} s per route after a ${WARMUP_SECONDS} s warm-up; browse served by the API's 1 s read cache (the default BROWSE_CACHE_MS) unless marked "cache off" (BROWSE_CACHE_MS=0: every request runs its SQL); /me reads 4 statements (key, stats, listings, recent transactions)`;
  writeSection("2-api-reads", {
    order: 2,
    title: "API reads",
    durationMs: performance.now() - started,
    tables: [
      {
        title: "Browse and profile throughput, next to a bare Hono route",
        workload,
        columns: ["route", "req/s", "p50 ms", "p99 ms", "of bare", "errors"],
        rows: runs.map((run) => [
          run.name,
          Math.round(run.requestsPerSecond),
          run.p50,
          run.p99,
          `${(run.requestsPerSecond / bare).toFixed(2)}×`,
          run.errors,
        ]),
      },
      memory.stop(`API read benchmark: seeding, then ${workload}`),
    ],
  });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await stack.stop();
}
