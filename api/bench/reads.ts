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
 * Then, on a stack of its own, a market its users made (user-market.ts): 500 agents registered
 * through the API and BENCH_USER_LISTINGS listings (default BENCH_MARKET_LISTINGS) written as people
 * write, the first BENCH_USER_HTTP_LISTINGS (default 10,000) created through POST /api/listings,
 * the rest through the use case that route calls (the same inserts and triggers; all of them
 * through HTTP would add minutes); browsed with its words (60 % a keyword, 15 % of those two
 * words), any category, type and sort, price bounds (50 %) and pages of 10 to 100
 * (userBrowseQuery), cache off, next to the bare route measured again. Its seeding takes most of
 * that part's time. BENCH_USER_LISTINGS=0 leaves it out.
 *
 * Env: BENCH_SECONDS per row (default 10) after BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS
 * (default 50), BENCH_CPU_PROFILE (a folder for a CPU profile of the one-process API, and of the one
 * browsing the users' market). Goals (issue 23, cache off, one run): browse p99 ≤ 25 ms and ≥ 1/20
 * of the bare route's throughput; /me, details and profile p99 ≤ 15 ms; the API process ≤ 300 MiB.
 * Issue 47: the same browse goals on the users' market.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { type Stack, startStack } from "@agent-marketplace/indexer/testing";
import { sampleMemory } from "../../bench/memory.ts";
import { writeSection } from "../../bench/results.ts";
import { createDatabase } from "../src/db/client.ts";
import { migrateDatabase } from "../src/migrate.ts";
import { type Server, startApi, startHello } from "./api-process.ts";
import { LISTING_VOCABULARY } from "./listing-text.ts";
import { type Draw, measureAtRate, measureReads, type ReadFigures, same } from "./read-load.ts";
import { seedEscrows, seedKeptProfiles, seedMarket, VOCABULARY } from "./seed.ts";
import { browser, nextCursorOf, pickFrom, randomSource, userBrowseQuery } from "./traffic.ts";
import { seedUserMarket } from "./user-market.ts";

const LOAD = {
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
};
const LISTINGS = Number(process.env.BENCH_MARKET_LISTINGS ?? 100_000);
const AGENTS = Number(process.env.BENCH_MARKET_AGENTS ?? 10_000);
const ESCROWS = Number(process.env.BENCH_MARKET_ESCROWS ?? 100_000);
const KEYS = Math.min(1_000, AGENTS);
const USER_LISTINGS = Number(process.env.BENCH_USER_LISTINGS ?? LISTINGS);
const USER_AGENTS = 500;
const USER_HTTP_LISTINGS = Number(process.env.BENCH_USER_HTTP_LISTINGS ?? 10_000);
const count = (n: number) => n.toLocaleString("en-US");

/** The most memory the process has held so far (VmHWM), in MiB. */
function peakMemoryMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024);
}

/** A browse as a person makes it, each connection a person of its own (`query` draws a new search). */
function browsing(random: () => number, query?: (random: () => number) => URLSearchParams): Draw {
  return (connection) => {
    connection.browser ??= browser(random, query);
    const person = connection.browser as ReturnType<typeof browser>;
    const { path, remember } = person.next();
    return { path, keep: (body) => remember(nextCursorOf(body)) };
  };
}

/** The bare Hono route, and (withDatabase) the same making one Postgres round trip, on `stack`'s database. */
async function measureBare(stack: Stack, withDatabase: boolean): Promise<ReadFigures[]> {
  const hello = await startHello(stack.postgres.apiUrl);
  try {
    const rows = [await measureReads("bare Hono GET /hello", hello.url, same("/hello"), LOAD)];
    if (withDatabase) {
      rows.push(
        await measureReads("bare Hono + one Postgres round trip (SELECT $1::int)", hello.url, same("/hello/db"), LOAD),
      );
    }
    return rows;
  } finally {
    await hello.stop();
  }
}

/**
 * The users' market on a stack of its own: seeded through the API, then its browse measured on a
 * fresh API (cache off) saturated and at a steady half, next to the bare route measured again.
 */
async function measureUserMarket() {
  const stack = await startStack({ name: "reads-users-bench" });
  const servers: Server[] = [];
  try {
    await stack.startIndexer();
    // The API that takes the registrations and listings (its rate limits out of the way: startApi).
    const seeder = await startApi(stack);
    servers.push(seeder);
    const seedStarted = performance.now();
    const took = await seedUserMarket(stack, seeder.url, {
      agents: USER_AGENTS,
      listings: USER_LISTINGS,
      throughHttp: USER_HTTP_LISTINGS,
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await seeder.stop();
    const through = Math.min(USER_HTTP_LISTINGS, USER_LISTINGS);
    const seeded = `${count(USER_LISTINGS)} listings of ${count(USER_AGENTS)} agents registered through the API, ${count(through)} of them created through POST /api/listings and ${count(USER_LISTINGS - through)} through its use case`;
    console.log(
      `\nseeded ${seeded} in ${seedSeconds.toFixed(1)} s (registrations ${took.registerSeconds.toFixed(1)} s, HTTP ${took.httpSeconds.toFixed(1)} s, use case ${took.useCaseSeconds.toFixed(1)} s)`,
    );
    const rows = await measureBare(stack, false);
    const api = await startApi(stack, { BROWSE_CACHE_MS: "0" }, true);
    servers.push(api);
    const name = "browse, listings created through the API (cache off)";
    const browse = browsing(randomSource(47), userBrowseQuery);
    const saturated = await measureReads(name, api.url, browse, LOAD);
    rows.push(saturated);
    const rate = Math.max(1, Math.round(saturated.requestsPerSecond / 2));
    const steady = `${name.replace(/\)$/, "")}, steady ${count(rate)} req/s)`;
    rows.push(await measureAtRate(steady, api.url, browse, { ...LOAD, rate }));
    const peakMiB = peakMemoryMiB(api.child.pid);
    await api.stop();
    return { rows, seeded, seedSeconds, peakMiB };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await stack.stop();
  }
}

/** A table of read figures, each throughput also as a share of `rows[0]`'s (the bare route's). */
function figuresTable(title: string, workload: string, rows: ReadFigures[]) {
  const bare = rows[0]?.requestsPerSecond ?? 1;
  return {
    title,
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
  };
}

const started = performance.now();
const stack = await startStack({ name: "reads-bench" });
const memory = sampleMemory();
const servers: Server[] = [];
let seededMarket: { rows: ReadFigures[]; workload: string } | undefined;
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
  const browse = browsing(random);
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

  const rows = await measureBare(stack, true);

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

  const workload = `${seeded}; ${LOAD.connections} connections (autocannon; each sends its next request when its last is answered), ${LOAD.seconds} s per row after a ${LOAD.warmupSeconds} s warm-up, ${availableParallelism()} CPUs shared by the API, Postgres, the chain, the indexer and the client. Varied browse: per request a keyword from ${VOCABULARY.length} words (60 %), a category (50 %), a type (40 %), one of 3 sorts, price bounds (25 %) or starter; 30 % of requests follow the connection's previous next_cursor. /me with ${count(KEYS)} agents' keys; details and profiles of random listings and agents, every agent's profile kept by the seed as a running service holds them (/me and profiles answer the kept JSON after one statement that checks it is current). "cache off": BROWSE_CACHE_MS=0, no answer is served from memory: browse searches the process's listing index after one round trip that catches it up with every committed write (BROWSE_INDEX=memory, the default), the other reads run their SQL; "SQL per page": BROWSE_INDEX=sql, a browse statement per page; "2 processes": API_PROCESSES=2 on the one port. "steady N req/s": the same requests due at even intervals, N a second (half the row above's throughput), on up to ${LOAD.connections} connections, each timed from when it was due. Repeated rows send one request again and again. Peak memory of the one-process API (cache off): ${peakMiB} MiB`;
  console.log(`\nAPI process peak memory (cache off, one process): ${peakMiB} MiB`);
  seededMarket = { rows, workload };
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await stack.stop();
}

if (!seededMarket) throw new Error("reads benchmark: the seeded market was not measured");
const users = USER_LISTINGS > 0 ? await measureUserMarket() : undefined;
const tables = [figuresTable("Reads at traffic, next to a bare Hono route", seededMarket.workload, seededMarket.rows)];
if (users) {
  console.log(`API process peak memory (users' market, cache off): ${users.peakMiB} MiB`);
  const workload = `${users.seeded} (seeded in ${Math.round(users.seedSeconds)} s): titles of 2 to 6 words and descriptions of 2 to 8 sentences (~100-600 characters) over ${LISTING_VOCABULARY.length} English words with a language's frequencies, any category, prices mostly round (user-market.ts; FIXED: an external agent's bounty stays hidden until funded). Browse (userBrowseQuery): a keyword (60 %) of the same words, 15 % of them two words; a category (50 %); a type (40 %); one of 4 sorts; price bounds (50 %); limit 10 to 100; 30 % of requests follow the connection's previous next_cursor. BROWSE_CACHE_MS=0, the listing index (BROWSE_INDEX=memory); ${LOAD.connections} connections, ${LOAD.seconds} s per row after a ${LOAD.warmupSeconds} s warm-up; the bare route measured again on this stack; "steady N req/s" as above. Peak memory of the API: ${users.peakMiB} MiB`;
  tables.push(
    figuresTable("Browse of a market its users made (issue 47), next to a bare Hono route", workload, users.rows),
  );
}
writeSection("2-api-reads", {
  order: 2,
  title: "API reads (varied traffic, and repeated queries)",
  durationMs: performance.now() - started,
  tables: [
    ...tables,
    memory.stop(
      `API read benchmark: seeding, then ${seededMarket.workload}${users ? "; then the users' market: seeding through the API, its browse" : ""}`,
    ),
  ],
});
