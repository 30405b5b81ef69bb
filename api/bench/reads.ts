/**
 * `pnpm bench` for the API's reads. A market at scale: 100,000 listings of 10,000 agents and
 * 100,000 indexed escrows (BENCH_MARKET_LISTINGS, BENCH_MARKET_AGENTS, BENCH_MARKET_ESCROWS),
 * written straight into the database (seed.ts) on the real stack (Hardhat node, embedded Postgres,
 * indexer); the API runs as its own process(es), src/main.ts. Load: autocannon, 50 connections
 * each sending its next request when its last is answered.
 *
 * Rows, next to a bare Hono route under the same client (and the same route making one trivial
 * round trip to Postgres: the floor of any read that asks the database):
 * - varied (traffic.ts): every browse draws its own keyword, filters, sort and 30 % next pages;
 *   GET /api/agents/me with 1,000 agents' keys; details and profiles of random listings and agents.
 *   With the read cache off (no answer served from memory: the goals), on one API process and on
 *   two (API_PROCESSES=2), browse with its pages read by SQL instead of the listing index
 *   (BROWSE_INDEX=sql), and browse again with the cache on (the default). On one process each read
 *   is also sent at a steady half of the throughput it reached (measureAtRate: requests due at
 *   even intervals, each timed from when it was due): the latency of a busy, unsaturated service.
 * - repeated queries: the same browse or /me again and again, as served (cache on): what a cache
 *   does for one hot page, not what users see.
 *
 * Env: BENCH_SECONDS per row (default 10) after BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS
 * (default 50), BENCH_CPU_PROFILE (a folder for a CPU profile of the one-process API). Goals (issue
 * 23, cache off, one run): browse p99 ≤ 25 ms and ≥ 1/20 of the bare route's throughput; /me,
 * details and profile p99 ≤ 15 ms; the API process ≤ 300 MiB.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { startStack } from "@agent-marketplace/indexer/testing";
import { sampleMemory } from "../../bench/memory.ts";
import { writeSection } from "../../bench/results.ts";
import { createDatabase } from "../src/db/client.ts";
import { migrateDatabase } from "../src/migrate.ts";
import { type Server, startApi, startHello } from "./api-process.ts";
import { type Draw, measureAtRate, measureReads, type ReadFigures, same } from "./read-load.ts";
import { seedEscrows, seedKeptProfiles, seedMarket, VOCABULARY } from "./seed.ts";
import { browser, nextCursorOf, pickFrom, randomSource } from "./traffic.ts";

const LOAD = {
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
};
const LISTINGS = Number(process.env.BENCH_MARKET_LISTINGS ?? 100_000);
const AGENTS = Number(process.env.BENCH_MARKET_AGENTS ?? 10_000);
const ESCROWS = Number(process.env.BENCH_MARKET_ESCROWS ?? 100_000);
const KEYS = Math.min(1_000, AGENTS);
const count = (n: number) => n.toLocaleString("en-US");

/** The most memory the process has held so far (VmHWM), in MiB. */
function peakMemoryMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024);
}

const started = performance.now();
const stack = await startStack({ name: "reads-bench" });
const memory = sampleMemory();
const servers: Server[] = [];
try {
  await stack.startIndexer();
  // Seeding 100,000 rows into indexed tables takes longer than a request may.
  const db = createDatabase(stack.postgres.apiUrl, { max: 4, queryTimeoutMs: 600_000 });
  await migrateDatabase(db);
  const seedStarted = performance.now();
  const market = await seedMarket(db, { agents: AGENTS, listings: LISTINGS, keys: KEYS });
  await seedEscrows(db, { schema: stack.schema, chainId: stack.deployment.chainId }, ESCROWS);
  await seedKeptProfiles(db, { chainId: stack.deployment.chainId, deployment: stack.deployment }, market.agentIds);
  await db.$client.end();
  const seeded = `${count(LISTINGS)} listings of ${count(AGENTS)} agents, ${count(ESCROWS)} indexed escrows and ${count(KEYS)} API keys`;
  console.log(`seeded ${seeded} in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const random = randomSource(23);
  const browse: Draw = (connection) => {
    connection.browser ??= browser(random);
    const person = connection.browser as ReturnType<typeof browser>;
    const { path, remember } = person.next();
    return { path, keep: (body) => remember(nextCursorOf(body)) };
  };
  const me: Draw = () => ({
    path: "/api/agents/me",
    headers: { authorization: `Bearer ${pickFrom(market.apiKeys, random)}` },
  });
  const details: Draw = () => ({ path: `/api/listings/${pickFrom(market.listingIds, random)}` });
  const profile: Draw = () => ({ path: `/api/agents/${pickFrom(market.agentIds, random)}` });
  const varied = (label: string): [string, Draw][] => [
    [`browse, varied (${label})`, browse],
    [`GET /api/agents/me, ${count(KEYS)} keys (${label})`, me],
    [`GET /api/listings/{id}, random (${label})`, details],
    [`GET /api/agents/{id}, random (${label})`, profile],
  ];

  const hello = await startHello(stack.postgres.apiUrl);
  servers.push(hello);
  const rows: ReadFigures[] = [
    await measureReads("bare Hono GET /hello", hello.url, same("/hello"), LOAD),
    await measureReads("bare Hono + one Postgres round trip (SELECT $1::int)", hello.url, same("/hello/db"), LOAD),
  ];
  await hello.stop();

  /**
   * Measures `draws` on a fresh API with `env`, and with `atHalf` each again at a steady half of the
   * throughput it just reached; answers the API's peak memory.
   */
  async function onApi(env: Record<string, string>, draws: [string, Draw][], profileCpu = false, atHalf = false) {
    const api = await startApi(stack, env, profileCpu);
    servers.push(api);
    for (const [name, draw] of draws) {
      const saturated = await measureReads(name, api.url, draw, LOAD);
      rows.push(saturated);
      if (atHalf) {
        const rate = Math.max(1, Math.round(saturated.requestsPerSecond / 2));
        const steady = `${name.replace(/\)$/, "")}, steady ${count(rate)} req/s)`;
        rows.push(await measureAtRate(steady, api.url, draw, { ...LOAD, rate }));
      }
    }
    const peak = peakMemoryMiB(api.child.pid);
    await api.stop();
    return peak;
  }
  const peakMiB = await onApi({ BROWSE_CACHE_MS: "0" }, varied("cache off"), true, true);
  await onApi({ BROWSE_CACHE_MS: "0", BROWSE_INDEX: "sql" }, [["browse, varied (cache off, SQL per page)", browse]]);
  await onApi({ BROWSE_CACHE_MS: "0", API_PROCESSES: "2" }, varied("cache off, 2 processes"));
  const keywordBrowse = "/api/listings?keyword=kalo&category=coding";
  const categoryBrowse = "/api/listings?category=coding";
  await onApi({}, [
    ["browse, varied (cache on)", browse],
    [`repeated: GET ${keywordBrowse} (cache on)`, same(keywordBrowse)],
    [`repeated: GET ${categoryBrowse} (cache on)`, same(categoryBrowse)],
    ["repeated: GET /api/agents/me, one key", same("/api/agents/me", { authorization: `Bearer ${market.apiKeys[0]}` })],
  ]);

  const bare = rows[0]?.requestsPerSecond ?? 1;
  const workload = `${seeded}; ${LOAD.connections} connections (autocannon; each sends its next request when its last is answered), ${LOAD.seconds} s per row after a ${LOAD.warmupSeconds} s warm-up, ${availableParallelism()} CPUs shared by the API, Postgres, the chain, the indexer and the client. Varied browse: per request a keyword from ${VOCABULARY.length} words (60 %), a category (50 %), a type (40 %), one of 3 sorts, price bounds (25 %) or starter; 30 % of requests follow the connection's previous next_cursor. /me with ${count(KEYS)} agents' keys; details and profiles of random listings and agents, every agent's profile kept by the seed as a running service holds them (/me and profiles answer the kept JSON after one statement that checks it is current). "cache off": BROWSE_CACHE_MS=0, no answer is served from memory: browse searches the process's listing index after one round trip that catches it up with every committed write (BROWSE_INDEX=memory, the default), the other reads run their SQL; "SQL per page": BROWSE_INDEX=sql, a browse statement per page; "2 processes": API_PROCESSES=2 on the one port. "steady N req/s": the same requests due at even intervals, N a second (half the row above's throughput), on up to ${LOAD.connections} connections, each timed from when it was due. Repeated rows send one request again and again. Peak memory of the one-process API (cache off): ${peakMiB} MiB`;
  console.log(`\nAPI process peak memory (cache off, one process): ${peakMiB} MiB`);
  writeSection("2-api-reads", {
    order: 2,
    title: "API reads (varied traffic, and repeated queries)",
    durationMs: performance.now() - started,
    tables: [
      {
        title: "Reads at traffic, next to a bare Hono route",
        workload,
        columns: ["request", "req/s", "p50 ms", "p90 ms", "p99 ms", "of bare", "errors"],
        rows: rows.map((row) => [
          row.name,
          Math.round(row.requestsPerSecond),
          row.p50,
          row.p90,
          row.p99,
          row.steadyRate === undefined ? `${(row.requestsPerSecond / bare).toFixed(3)}×` : "—",
          row.errors,
        ]),
      },
      memory.stop(`API read benchmark: seeding, then ${workload}`),
    ],
  });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await stack.stop();
}
