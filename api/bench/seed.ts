/**
 * The data the read benchmarks run on: agents and listings written with plain SQL (they measure
 * reads, not the write path), with titles and descriptions drawn from a fixed vocabulary so that
 * keyword searches find some listings and not others, every category, both types and a spread of
 * prices and purchase counts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { generateApiKey, hashApiKey } from "../src/auth/api-keys.ts";
import type { Database } from "../src/db/client.ts";

export const CATEGORIES = ["research", "writing", "coding", "analysis", "design", "data", "other"];
export const WORDS = (
  "summarize translate audit refactor benchmark scrape classify label render illustrate forecast index " +
  "transcribe review optimize deploy migrate document test profile analyze visualize research draft edit " +
  "solidity python rust typescript react postgres kubernetes pipeline model dataset report chart logo"
).split(" ");

export function pick<T>(items: T[], i: number): T {
  return items[i % items.length] as T;
}

/** Inserts `agents` external agents and `listings` listings spread over them; answers the agents' ids. */
export async function seedListings(db: Database, counts: { agents: number; listings: number }): Promise<string[]> {
  const agentIds: string[] = [];
  for (let i = 0; i < counts.agents; i++) {
    const id = randomUUID();
    agentIds.push(id);
    const wallet = `0x${randomBytes(20).toString("hex")}`;
    await db.execute(
      sql`INSERT INTO app.agents (id, name, wallet_address, hosted) VALUES (${id}, ${`bench agent ${i}`}, ${wallet}, false)`,
    );
  }
  for (let start = 0; start < counts.listings; start += 1_000) {
    const rows = Array.from({ length: Math.min(1_000, counts.listings - start) }, (_, k) => {
      const i = start + k;
      const title = `${pick(WORDS, i * 7)} ${pick(WORDS, i * 13 + 1)} ${pick(WORDS, i * 3 + 2)}`;
      const description = Array.from({ length: 12 }, (_, w) => pick(WORDS, i * 31 + w * 5)).join(" ");
      return sql`(${pick(agentIds, i)}, ${title}, ${description}, ${pick(CATEGORIES, i)}, ${i % 5 === 0 ? "BOUNTY" : "FIXED"}, ${String(100_000 + ((i * 7_919) % 50_000_000))}, ${i % 97})`;
    });
    await db.execute(
      sql`INSERT INTO app.listings (agent_id, title, description, category, listing_type, price_wei, times_purchased) VALUES ${sql.join(rows, sql`, `)}`,
    );
  }
  // What autovacuum would have done by now: statistics, hint bits, the visibility map.
  await db.execute(sql`VACUUM ANALYZE app.listings`);
  await db.execute(sql`VACUUM ANALYZE app.agents`);
  return agentIds;
}

/** 24 syllables; every pair of them is a word: 576 words that start one another only when they share a first syllable. */
const SYLLABLES = "ka lo mi su te ra ne po di fa gu be zo hi ly wa ce jo xu qi vo ma ti ru".split(" ");

/** The vocabulary of the traffic-like benchmark: at least 500 words. */
export const VOCABULARY: string[] = SYLLABLES.flatMap((first) => SYLLABLES.map((second) => `${first}${second}`));

export interface MarketCounts {
  agents: number;
  listings: number;
  /** How many agents get an API key (the keys are answered, in the agents' order). */
  keys: number;
}

export interface SeededMarket {
  agentIds: string[];
  listingIds: string[];
  /** `keys` API keys, the i-th of agentIds[i]. */
  apiKeys: string[];
}

/**
 * A market at scale, in a few statements (generate_series in Postgres, not a row at a time):
 * `agents` agents, `listings` listings spread over them (titles of 3 and descriptions of 12 words
 * of VOCABULARY, every category, a fifth of them bounties, prices from 0.1 to 50 USDC, purchase
 * counts, creation times a minute apart), and API keys for the first `keys` agents.
 */
export async function seedMarket(db: Database, counts: MarketCounts): Promise<SeededMarket> {
  const words = sql`${`{${VOCABULARY.join(",")}}`}::text[]`;
  const categories = sql`${`{${CATEGORIES.join(",")}}`}::text[]`;
  const n = VOCABULARY.length;
  // The k-th word of row i: spread over the vocabulary by two primes, the same on every run.
  const word = (k: number) => sql`(${words})[1 + ((i::bigint * 7919 + ${k * 104_729}) % ${n})]`;
  await db.execute(sql`
    INSERT INTO app.agents (name, wallet_address, hosted, created_at)
    SELECT 'bench agent ' || i, '0x' || md5('wallet' || i) || substr(md5('w' || i), 1, 8), false,
           now() - make_interval(mins => ${counts.agents} - i)
    FROM generate_series(1, ${counts.agents}) AS i`);
  const agentIds = (
    await db.execute<{ id: string }>(sql`SELECT id FROM app.agents WHERE name LIKE 'bench agent %' ORDER BY created_at`)
  ).rows.map((row) => row.id);
  await db.execute(sql`
    WITH agents AS (SELECT array_agg(id ORDER BY created_at) AS ids FROM app.agents WHERE name LIKE 'bench agent %')
    INSERT INTO app.listings (agent_id, title, description, category, listing_type, price_wei, times_purchased, created_at)
    SELECT agents.ids[1 + (i % ${agentIds.length})],
           ${word(0)} || ' ' || ${word(1)} || ' ' || ${word(2)},
           concat_ws(' ', ${sql.join(
             Array.from({ length: 12 }, (_, k) => word(k + 3)),
             sql`, `,
           )}),
           (${categories})[1 + (i % ${CATEGORIES.length})],
           CASE WHEN i % 5 = 0 THEN 'BOUNTY' ELSE 'FIXED' END,
           100000 + (i::bigint * 7919) % 49900000,
           (i * 31) % 97,
           now() - make_interval(mins => ${counts.listings} - i)
    FROM generate_series(1, ${counts.listings}) AS i, agents`);
  const listingIds = (await db.execute<{ id: string }>(sql`SELECT id FROM app.listings`)).rows.map((row) => row.id);
  const apiKeys = agentIds.slice(0, counts.keys).map(() => generateApiKey());
  for (let start = 0; start < apiKeys.length; start += 1_000) {
    const rows = apiKeys.slice(start, start + 1_000).map((key, k) => sql`(${agentIds[start + k]}, ${hashApiKey(key)})`);
    await db.execute(sql`INSERT INTO app.api_keys (agent_id, key_hash) VALUES ${sql.join(rows, sql`, `)}`);
  }
  for (const table of ["agents", "listings", "api_keys"]) await db.execute(sql.raw(`VACUUM ANALYZE app.${table}`));
  return { agentIds, listingIds, apiKeys };
}
