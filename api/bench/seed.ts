/**
 * The data the read benchmarks run on: agents and listings written with plain SQL (they measure
 * reads, not the write path), with titles and descriptions drawn from a fixed vocabulary so that
 * keyword searches find some listings and not others, every category, both types and a spread of
 * prices and purchase counts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
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
