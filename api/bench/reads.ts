/**
 * `pnpm bench` for reads at traffic: 100,000 listings of 10,000 agents (BENCH_MARKET_LISTINGS,
 * BENCH_MARKET_AGENTS), 50 workers each sending its next request when the last is answered, and
 * every request drawn at random (traffic.ts): browses with their own keyword, filters, sort and
 * 30 % next pages; GET /api/agents/me with 1,000 agents' keys; listing details and agent profiles of
 * random listings and agents. Measured with the API's read cache off (every request runs its SQL)
 * and on (the default), next to a bare Hono route under the same client. The API is its own process
 * on the real stack (Hardhat node, embedded Postgres, indexer).
 *
 * Env: BENCH_SECONDS per row (default 10) after BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS
 * (default 50). Goals (issue 23, cache off): browse p99 ≤ 25 ms and ≥ 1/20 of the bare route's
 * throughput; /me, details and profile p99 ≤ 15 ms; the API ≤ 300 MiB.
 */
import { availableParallelism } from "node:os";
import { startStack } from "@agent-marketplace/indexer/testing";
import { sampleMemory } from "../../bench/memory.ts";
import { writeSection } from "../../bench/results.ts";
import { createDatabase } from "../src/db/client.ts";
import { migrateDatabase } from "../src/db/migrate.ts";
import { type Server, startApi, startHello } from "./api-process.ts";
import { concurrentLoad, type LoadFigures } from "./concurrent-load.ts";
import { seedMarket, VOCABULARY } from "./seed.ts";
import { browser, pickFrom, randomSource } from "./traffic.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const LISTINGS = Number(process.env.BENCH_MARKET_LISTINGS ?? 100_000);
const AGENTS = Number(process.env.BENCH_MARKET_AGENTS ?? 10_000);
const KEYS = Math.min(1_000, AGENTS);

interface Row extends LoadFigures {
  name: string;
  errors: number;
}

/** One worker's next request: its path, its headers, and what to keep from the answer. */
type Draw = (worker: number) => { path: string; headers?: Record<string, string>; keep?: (body: unknown) => void };

async function measure(name: string, baseUrl: string, draw: Draw): Promise<Row> {
  let errors = 0;
  const run = (seconds: number) =>
    concurrentLoad(CONNECTIONS, seconds, async (worker) => {
      const { path, headers, keep } = draw(worker);
      const response = await fetch(`${baseUrl}${path}`, { headers });
      const body = await response.json().catch(() => undefined);
      if (!response.ok) errors++;
      else keep?.(body);
      return true;
    });
  await run(WARMUP_SECONDS);
  errors = 0;
  const figures = await run(SECONDS);
  const row = { name, ...figures, errors };
  console.log(
    `${name.padEnd(46)} ${Math.round(row.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s  p50 ${String(row.p50).padStart(4)} ms  p99 ${String(row.p99).padStart(4)} ms${errors ? `  ${errors} errors` : ""}`,
  );
  return row;
}

const started = performance.now();
const stack = await startStack({ name: "reads-bench" });
const memory = sampleMemory();
const servers: Server[] = [];
try {
  await stack.startIndexer();
  // Seeding 100,000 rows into indexed tables takes longer than a request may.
  const db = createDatabase(stack.postgres.url, { max: 4, queryTimeoutMs: 600_000 });
  await migrateDatabase(db);
  const seedStarted = performance.now();
  const market = await seedMarket(db, { agents: AGENTS, listings: LISTINGS, keys: KEYS });
  await db.$client.end();
  console.log(
    `seeded ${LISTINGS.toLocaleString("en-US")} listings of ${AGENTS.toLocaleString("en-US")} agents and ${KEYS} keys in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
  );

  const random = randomSource(23);
  const browsers = Array.from({ length: CONNECTIONS }, () => browser(random));
  const browse: Draw = (worker) => {
    const person = browsers[worker % browsers.length];
    if (!person) throw new Error("no browser for the worker");
    return {
      path: person.nextPath(),
      keep: (body) => person.remember((body as { next_cursor?: string | null } | undefined)?.next_cursor),
    };
  };
  const me: Draw = () => ({
    path: "/api/agents/me",
    headers: { authorization: `Bearer ${pickFrom(market.apiKeys, random)}` },
  });
  const details: Draw = () => ({ path: `/api/listings/${pickFrom(market.listingIds, random)}` });
  const profile: Draw = () => ({ path: `/api/agents/${pickFrom(market.agentIds, random)}` });

  const hello = await startHello();
  servers.push(hello);
  const rows: Row[] = [await measure("bare Hono GET /hello", hello.url, () => ({ path: "/hello" }))];
  for (const [label, env] of [
    ["cache off", { BROWSE_CACHE_MS: "0" }],
    ["cache on", {}],
  ] as const) {
    const api = await startApi(stack, env);
    servers.push(api);
    rows.push(
      await measure(`browse, varied (${label})`, api.url, browse),
      await measure(`GET /api/agents/me, ${KEYS.toLocaleString("en-US")} keys (${label})`, api.url, me),
      await measure(`GET /api/listings/{id}, random (${label})`, api.url, details),
      await measure(`GET /api/agents/{id}, random (${label})`, api.url, profile),
    );
    await api.stop();
  }
  const bare = rows[0]?.requestsPerSecond ?? 1;
  const workload = `${LISTINGS.toLocaleString("en-US")} listings of ${AGENTS.toLocaleString("en-US")} agents; ${CONNECTIONS} workers (each sends its next request when its last is answered, Node's fetch), ${SECONDS} s per row after a ${WARMUP_SECONDS} s warm-up, ${availableParallelism()} CPUs shared by the API, Postgres, the chain, the indexer and the client. Browse: per request a keyword from ${VOCABULARY.length} words (60 %), a category (50 %), a type (40 %), one of 3 sorts, price bounds (25 %) or starter; 30 % of requests follow the previous page's next_cursor. /me with ${KEYS} agents' keys; details and profiles of random listings and agents. "cache off": BROWSE_CACHE_MS=0`;
  writeSection("2b-api-traffic", {
    order: 2.5,
    title: "API reads at traffic (varied queries, many keys)",
    durationMs: performance.now() - started,
    tables: [
      {
        title: "Varied reads, next to a bare Hono route",
        workload,
        columns: ["request", "req/s", "p50 ms", "p99 ms", "of bare", "errors"],
        rows: rows.map((row) => [
          row.name,
          Math.round(row.requestsPerSecond),
          row.p50,
          row.p99,
          `${(row.requestsPerSecond / bare).toFixed(3)}×`,
          row.errors,
        ]),
      },
      memory.stop(`API traffic benchmark: seeding, then ${workload}`),
    ],
  });
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  await stack.stop();
}
