/**
 * A market as its users make it, for the reads benchmark: agents registered through POST
 * /api/agents/register, each listing written as people write (listing-text.ts: sentences over 600
 * words, prices mostly round) and created through POST /api/listings, or, past the first
 * `throughHttp`, through the use case that route calls (`listingUseCases(...).create`), in this
 * process: the same statements, triggers and answer, without HTTP and the key check. Creating
 * 100,000 listings through HTTP alone would take minutes more of the benchmark; either way every
 * listing is inserted one by one, its card, words and browse change written by the same triggers
 * as a user's. Unlike seed.ts (plain SQL, three-word titles, one word per 4-letter vocabulary
 * item), the text here has the frequencies of a language: words in nearly every listing, short
 * words that start dozens of others.
 *
 * Listings are FIXED: an external agent's bounty is hidden from browse until it is funded on the
 * chain, so a BOUNTY filter finds none here. None has been bought (popular is newest by id).
 */
import { randomBytes } from "node:crypto";
import type { Stack } from "@agent-marketplace/indexer/testing";
import { inArray } from "drizzle-orm";
import pino from "pino";
import { createChainServices } from "../src/chain/services.ts";
import { loadConfig } from "../src/config.ts";
import { createDatabase } from "../src/db/client.ts";
import { agents } from "../src/db/schema.ts";
import { listingUseCases } from "../src/domain/listings/listings.ts";
import type { ListingCategory } from "../src/domain/shared/listing-terms.ts";
import { apiPaths } from "../src/routes/paths.ts";
import { listingText } from "./listing-text.ts";
import { CATEGORIES } from "./seed.ts";
import { pickFrom, randomSource } from "./traffic.ts";

export interface UserMarketCounts {
  agents: number;
  listings: number;
  /** How many of the listings are created through POST /api/listings (the first ones). */
  throughHttp: number;
}

/** Prices people set: mostly round amounts of USDC, else any amount to the cent. */
const ROUND_USDC = [1, 2, 3, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100];

/** One listing as a user writes it: text, category, price in wei. */
function userListing(random: () => number) {
  const { title, description } = listingText(random);
  const cents = random() < 0.7 ? pickFrom(ROUND_USDC, random) * 100 : 10 + Math.floor(random() * 5_000);
  return {
    title,
    description,
    category: pickFrom(CATEGORIES, random) as ListingCategory,
    price_wei: String(cents * 10_000),
  };
}

/** Runs `work(k)` for k from 0 to `count - 1` on `workers` at once. */
async function inParallel(count: number, workers: number, work: (k: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/**
 * Registers `counts.agents` external agents and creates `counts.listings` listings spread over them
 * on `apiUrl` (an API of `stack`, whose rate limits let the seeding through), the first
 * `counts.throughHttp` through HTTP; answers how long each part took.
 */
export async function seedUserMarket(
  stack: Stack,
  apiUrl: string,
  counts: UserMarketCounts,
): Promise<{ registerSeconds: number; httpSeconds: number; useCaseSeconds: number }> {
  const random = randomSource(47);
  const post = async (path: string, body: unknown, key?: string) => {
    const response = await fetch(`${apiUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const seconds = (since: number) => (performance.now() - since) / 1000;

  let started = performance.now();
  const sellers: { id: string; key: string }[] = [];
  await inParallel(counts.agents, 8, async (k) => {
    const answer = (await post("/api/agents/register", {
      agent_name: `seller ${k}`,
      wallet_address: `0x${randomBytes(20).toString("hex")}`,
    })) as { agent: { id: string }; api_key: string };
    sellers[k] = { id: answer.agent.id, key: answer.api_key };
  });
  const registerSeconds = seconds(started);

  started = performance.now();
  const throughHttp = Math.min(counts.throughHttp, counts.listings);
  await inParallel(throughHttp, 16, async () => {
    const seller = pickFrom(sellers, random);
    await post("/api/listings", { agent_id: seller.id, ...userListing(random) }, seller.key);
  });
  const httpSeconds = seconds(started);

  started = performance.now();
  const config = loadConfig({
    DATABASE_URL: stack.postgres.apiUrl,
    RPC_URL: stack.node.rpcUrl,
    CHAIN_ID: String(stack.deployment.chainId),
    DEPLOYMENTS_DIR: stack.deploymentsDir,
    MASTER_KEY: randomBytes(32).toString("hex"),
  });
  const db = createDatabase(config.databaseUrl, { max: 8 });
  try {
    const services = await createChainServices(config, db, stack.deployment);
    const listings = listingUseCases({ config, db, ...services, logger: pino({ level: "warn" }) }, apiPaths);
    const rows = await db
      .select()
      .from(agents)
      .where(
        inArray(
          agents.id,
          sellers.map((seller) => seller.id),
        ),
      );
    await inParallel(counts.listings - throughHttp, 8, async () => {
      const seller = pickFrom(rows, random);
      await listings.create(seller, { ...userListing(random), listing_type: "FIXED", is_negotiable: true });
    });
  } finally {
    await db.$client.end();
  }
  return { registerSeconds, httpSeconds, useCaseSeconds: seconds(started) };
}
