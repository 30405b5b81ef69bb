/**
 * `node bench/explain.ts`: the query plans of the reads the traffic benchmark sends, on seeded data.
 * Each read is answered by the real app (createApp) while its statements are captured at the pool;
 * every captured statement is then run again under EXPLAIN (ANALYZE, BUFFERS) with its own
 * parameters. Env: DATABASE_URL, RPC_URL, CHAIN_ID, DEPLOYMENTS_DIR of a seeded stack;
 * EXPLAIN_PATHS (JSON list of [label, path, api key?]). A browse sends only the listing index's
 * round trip (its first also loads the index); BROWSE_INDEX=sql shows the browse statements' plans.
 */
import { randomBytes } from "node:crypto";
import pino from "pino";
import { createApp } from "../src/app.ts";
import { createChainServices } from "../src/chain/services.ts";
import { loadConfig } from "../src/config.ts";
import { createDatabase } from "../src/db/client.ts";
import { MemoryRateLimitStore } from "../src/rate-limit/store.ts";

const config = loadConfig({
  ...process.env,
  MASTER_KEY: randomBytes(32).toString("hex"),
  LOG_LEVEL: "silent",
  BROWSE_CACHE_MS: "0",
});
const db = createDatabase(config.databaseUrl, { max: 1 });
const captured: { text: string; values: unknown[] }[] = [];
const pool = db.$client;
const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
let capturing = false;
(pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
  const [first, second] = args;
  if (capturing) {
    const text = typeof first === "string" ? first : (first as { text: string }).text;
    const values = (typeof first === "string" ? undefined : (first as { values?: unknown[] }).values) ?? second ?? [];
    captured.push({ text, values: values as unknown[] });
  }
  return query(...args);
};
const services = await createChainServices(config, db);
const app = createApp({
  config,
  db,
  ...services,
  logger: pino({ level: "silent" }),
  rateLimitStore: new MemoryRateLimitStore(),
});

const paths = JSON.parse(process.env.EXPLAIN_PATHS ?? "[]") as [string, string, string?][];
for (const [label, path, key] of paths) {
  captured.length = 0;
  capturing = true;
  const started = performance.now();
  const response = await app.request(path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const ms = performance.now() - started;
  capturing = false;
  const body = await response.text();
  console.log(
    `\n### ${label}: GET ${path} → ${response.status} (${body.length} bytes, ${ms.toFixed(1)} ms in the app)`,
  );
  for (const { text, values } of captured) {
    if (/^(begin|commit|rollback|set )/i.test(text.trim())) continue;
    const plan = await query({ text: `EXPLAIN (ANALYZE, BUFFERS) ${text}`, values });
    console.log(`\n${text.replace(/\s+/g, " ").slice(0, 600)}\n  params ${JSON.stringify(values).slice(0, 200)}`);
    for (const row of (plan as { rows: { "QUERY PLAN": string }[] }).rows) console.log(`  ${row["QUERY PLAN"]}`);
  }
}
await db.$client.end();
process.exit(0);
