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
import type { Deps } from "../src/deps.ts";
import { agentProfiles } from "../src/domain/agents/agent-profile.ts";
import { refreshAgentRecords } from "../src/domain/agents/agent-records.ts";
import { pruneProfileChanges } from "../src/domain/reads/kept-profiles.ts";
import { pruneBrowseChanges } from "../src/domain/reads/listing-index-sync.ts";

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
  for (const table of ["listings", "listing_words", "agents"]) await db.execute(sql.raw(`VACUUM ANALYZE app.${table}`));
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
  // The 100,000 listings' changes, pruned as an API process would have by now.
  await pruneBrowseChanges(db);
  await pruneProfileChanges(db);
  for (const table of ["agents", "listings", "listing_words", "api_keys", "browse_changes", "profile_changes"]) {
    await db.execute(sql.raw(`VACUUM ANALYZE app.${table}`));
  }
  return { agentIds, listingIds, apiKeys };
}

/** Where the escrows go: the indexer's schema of the stack and the chain it indexes. */
export interface EscrowTarget {
  /** The indexer's own schema (its tables; the API reads them through the `chain` views). */
  schema: string;
  chainId: number;
}

/**
 * `count` marketplace transactions between the seeded agents, each with the escrow the indexer
 * would have written for it (and the buyers' and sellers' account_stats that follow from them),
 * and the agents' kept records counted from them (as every API start counts them), in a few statements: what an indexer that had followed 100,000 trades would hold, without 100,000
 * transactions on the local chain. Most are released, some refunded, ruled, disputed, delivered or
 * still funded. Written with the indexer's reorg triggers off (session_replication_role = replica):
 * these rows belong to no block the indexer could roll back. Those still under way are not due (their
 * deadlines ahead, deliveries within their dispute window): the keeper would try to settle escrows
 * that are not on the chain, and spend the benchmark's CPU on refusals.
 */
export async function seedEscrows(db: Database, target: EscrowTarget, count: number): Promise<void> {
  const table = (name: string) => sql.raw(`"${target.schema.replaceAll('"', '""')}"."${name}"`);
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    await tx.execute(sql`
      WITH l AS (SELECT array_agg(id ORDER BY created_at) AS ids, array_agg(agent_id ORDER BY created_at) AS sellers,
                        array_agg(price_wei ORDER BY created_at) AS prices
                 FROM app.listings WHERE listing_type = 'FIXED'),
           a AS (SELECT array_agg(id ORDER BY created_at) AS ids FROM app.agents WHERE name LIKE 'bench agent %'),
           pick AS (SELECT i, 1 + (i::bigint * 13) % array_length(l.ids, 1) AS k, 1 + (i::bigint * 7) % array_length(a.ids, 1) AS b
                    FROM generate_series(1, ${count}) AS i, l, a)
      INSERT INTO app.transactions (listing_id, buyer_agent_id, seller_agent_id, amount_wei, description, deadline,
                                    dispute_window_seconds, created_at)
      SELECT l.ids[k], CASE WHEN a.ids[b] = l.sellers[k] THEN a.ids[1 + b % array_length(a.ids, 1)] ELSE a.ids[b] END,
             l.sellers[k], l.prices[k], 'bench trade ' || i,
             date_trunc('second', now() + interval '3 days'), 86400,
             now() - make_interval(secs => (${count} - i) * 30)
      FROM pick, l, a`);
    await tx.execute(sql`
      INSERT INTO ${table("escrow")} (chain_id, id, uuid, status, buyer, seller, amount, deadline, dispute_window,
        delivered_at, fee_bps, is_bounty, resolution_seller_bps, seller_payout, buyer_payout, fee_paid, settled_by,
        settled_at, funded_tx_hash, funded_block, funded_at, updated_block)
      SELECT ${target.chainId}, '0x' || repeat('0', 32) || replace(t.id::text, '-', ''), t.id::text, s.status,
             lower(buyer.wallet_address), lower(seller.wallet_address), t.amount_wei,
             extract(epoch FROM t.deadline)::bigint, t.dispute_window_seconds,
             CASE s.status WHEN 'FUNDED' THEN 0 WHEN 'DELIVERED' THEN extract(epoch FROM now())::bigint - 600
                           ELSE s.funded_at + 600 END, 250, false,
             CASE WHEN s.status = 'RESOLVED' THEN 5000 END,
             CASE s.status WHEN 'RELEASED' THEN t.amount_wei - t.amount_wei * 250 / 10000
                           WHEN 'RESOLVED' THEN t.amount_wei / 2 - (t.amount_wei / 2) * 250 / 10000 END,
             CASE s.status WHEN 'REFUNDED' THEN t.amount_wei WHEN 'RESOLVED' THEN t.amount_wei - t.amount_wei / 2
                           WHEN 'RELEASED' THEN 0 END,
             CASE s.status WHEN 'RELEASED' THEN t.amount_wei * 250 / 10000 WHEN 'RESOLVED' THEN (t.amount_wei / 2) * 250 / 10000
                           WHEN 'REFUNDED' THEN 0 END,
             CASE WHEN s.status IN ('RELEASED', 'REFUNDED', 'RESOLVED') THEN lower(buyer.wallet_address) END,
             CASE WHEN s.status IN ('RELEASED', 'REFUNDED', 'RESOLVED') THEN s.funded_at + 3600 END,
             '0x' || md5('funded' || t.id) || md5('tx' || t.id), 1, s.funded_at, 1
      FROM app.transactions t
      JOIN app.agents buyer ON buyer.id = t.buyer_agent_id
      JOIN app.agents seller ON seller.id = t.seller_agent_id,
      LATERAL (SELECT extract(epoch FROM t.created_at)::bigint AS funded_at,
                      CASE WHEN h < 80 THEN 'RELEASED' WHEN h < 85 THEN 'REFUNDED' WHEN h < 88 THEN 'RESOLVED'
                           WHEN h < 90 THEN 'DISPUTED' WHEN h < 95 THEN 'DELIVERED' ELSE 'FUNDED' END AS status
               FROM (SELECT abs(hashtext(t.id::text)) % 100 AS h) AS bucket) AS s
      WHERE t.description LIKE 'bench trade %'`);
    await tx.execute(sql`
      INSERT INTO ${table("account_stats")} (chain_id, address, escrows_as_buyer, escrows_as_seller, released_as_buyer,
        released_as_seller, refunded_as_buyer, refunded_as_seller, disputed_as_buyer, disputed_as_seller,
        resolved_as_buyer, resolved_as_seller, volume_as_buyer, volume_as_seller, earned, refunded_to_buyer,
        locked_as_buyer, updated_block, last_event)
      SELECT chain_id, address,
             count(*) FILTER (WHERE role = 'buyer'), count(*) FILTER (WHERE role = 'seller'),
             count(*) FILTER (WHERE role = 'buyer' AND status = 'RELEASED'),
             count(*) FILTER (WHERE role = 'seller' AND status = 'RELEASED'),
             count(*) FILTER (WHERE role = 'buyer' AND status = 'REFUNDED'),
             count(*) FILTER (WHERE role = 'seller' AND status = 'REFUNDED'),
             count(*) FILTER (WHERE role = 'buyer' AND status IN ('DISPUTED', 'RESOLVED')),
             count(*) FILTER (WHERE role = 'seller' AND status IN ('DISPUTED', 'RESOLVED')),
             count(*) FILTER (WHERE role = 'buyer' AND status = 'RESOLVED'),
             count(*) FILTER (WHERE role = 'seller' AND status = 'RESOLVED'),
             coalesce(sum(seller_payout + fee_paid) FILTER (WHERE role = 'buyer'), 0),
             coalesce(sum(seller_payout + fee_paid) FILTER (WHERE role = 'seller'), 0),
             coalesce(sum(seller_payout) FILTER (WHERE role = 'seller'), 0),
             coalesce(sum(buyer_payout) FILTER (WHERE role = 'buyer'), 0),
             coalesce(sum(amount) FILTER (WHERE role = 'buyer' AND status IN ('FUNDED', 'DELIVERED', 'DISPUTED')), 0),
             1, 'bench seed'
      FROM (SELECT chain_id, buyer AS address, 'buyer' AS role, status, amount, seller_payout, fee_paid, buyer_payout
            FROM ${table("escrow")} WHERE chain_id = ${target.chainId}
            UNION ALL
            SELECT chain_id, seller, 'seller', status, amount, seller_payout, fee_paid, buyer_payout
            FROM ${table("escrow")} WHERE chain_id = ${target.chainId}) AS sides
      GROUP BY chain_id, address`);
  });
  for (const name of ["escrow", "account_stats"]) await db.execute(sql`VACUUM ANALYZE ${table(name)}`);
  await db.execute(sql`VACUUM ANALYZE app.transactions`);
  await refreshAgentRecords(db, target.chainId);
  for (const name of ["transaction_escrows", "agent_records"])
    await db.execute(sql`VACUUM ANALYZE app.${sql.raw(name)}`);
  // Their buyers' and sellers' profile changes, pruned as an API process would have by now.
  await pruneProfileChanges(db);
  await db.execute(sql`VACUUM ANALYZE app.profile_changes`);
}

/**
 * Builds and keeps every agent's public profile (domain/reads/kept-profiles.ts), as a service that had
 * answered each once would hold them: profile reads then measure the kept profiles, as they are
 * served once running, not the first read of each after a seed that wrote around the API.
 */
export async function seedKeptProfiles(
  db: Database,
  chain: Pick<Deps["chain"], "chainId" | "deployment">,
  agentIds: readonly string[],
): Promise<void> {
  const profiles = agentProfiles({ db, chain });
  let next = 0;
  const worker = async () => {
    while (next < agentIds.length) await profiles.publicJson(agentIds[next++] as string);
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  await db.execute(sql`VACUUM ANALYZE app.profile_docs`);
}
