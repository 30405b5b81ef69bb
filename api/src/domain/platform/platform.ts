import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import { indexedBlock } from "@agent-marketplace/indexer";
import { sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { Database } from "../../db/client.ts";
import { freshSharedRead } from "../../db/fresh-shared-read.ts";
import type { Deps } from "../../deps.ts";
import { formatUsdc } from "../shared/money.ts";
import { DAY_SECONDS, marketNow, utcDay, utcDayStart } from "./market-clock.ts";
import { timeBoxed } from "./time-boxed.ts";

/*
 * What the marketplace says about itself: whether its parts answer (health), marketplace-wide
 * figures (stats), and the facts of this deployment (chain, contracts) its documents state.
 */

/** How far behind the chain head the indexer may be before health says "degraded". */
const MAX_HEALTHY_LAG_BLOCKS = 10n;

/**
 * The escrow contract's settings as indexed (chain.escrow_settings): the fee on sellers' shares and
 * the addresses of its roles. Undefined until the indexer has seen the deployment.
 */
export interface EscrowSettings {
  feeBps: number;
  feeRecipient: Address;
  arbiter: Address;
  operator: Address;
}

export async function escrowSettings(db: Database, chainId: number): Promise<EscrowSettings | undefined> {
  const { rows } = await db.execute<{ fee_bps: number; fee_recipient: Address; arbiter: Address; operator: Address }>(
    sql`SELECT fee_bps, fee_recipient, arbiter, operator FROM chain.escrow_settings WHERE chain_id = ${chainId}`,
  );
  const row = rows[0];
  return (
    row && {
      feeBps: Number(row.fee_bps),
      feeRecipient: getAddress(row.fee_recipient),
      arbiter: getAddress(row.arbiter),
      operator: getAddress(row.operator),
    }
  );
}

/**
 * Marketplace-wide figures: agents and listings from the app's tables, money from the transactions'
 * indexed escrows (an escrow counts only as some transaction's, under the rule of escrow-match.ts:
 * anyone may fund escrows between addresses of their own).
 */
export interface PlatformStats {
  active_agents: number;
  /** Value settled to sellers (payouts and fees) of released and ruled escrows, in USD (1 USDC = 1 USD). */
  total_volume_usd: string;
  /** Transactions whose escrow was funded on chain. */
  total_transactions: number;
  listings: { FIXED: number; BOUNTY: number };
}

/** One UTC day of marketplace activity, counted as PlatformStats counts the whole. */
export interface DailyFigures {
  /** YYYY-MM-DD, UTC. */
  date: string;
  /** Settled to sellers (payouts and fees) by releases and rulings mined that day. */
  volume_wei: string;
  volume_usdc: string;
  /** Transactions whose escrow was funded that day. */
  transactions: number;
}

/** The most days GET /api/stats/daily answers. */
export const MAX_DAILY_DAYS = 90;

export interface Health {
  status: "ok" | "degraded" | "down";
  database: { ok: boolean };
  chain: { ok: boolean; chainId: number; headBlock?: bigint };
  indexer: { ok: boolean; indexedBlock?: bigint; lagBlocks?: bigint };
}

/**
 * Whether this process should be sent traffic (GET /api/ready): the database and the chain
 * answer, and the indexer is at most `maxLagBlocks` behind the chain head (and, with INDEXER_URL,
 * its process answers).
 */
export interface Readiness {
  ready: boolean;
  database: { ok: boolean };
  chain: { ok: boolean; chainId: number; headBlock?: bigint };
  indexer: { ok: boolean; indexedBlock?: bigint; lagBlocks?: bigint; maxLagBlocks: number };
}

/** The most each part of the readiness check may take: a probe gets an answer, never a hang. */
const READY_PART_TIMEOUT_MS = 2_000;

/** The chain this deployment runs on and its contracts. */
export interface ChainFacts {
  chainId: number;
  escrow: Address;
  usdc: Address;
  /** The local development chain (its USDC is MockUSDC: the faucet exists). */
  localChain: boolean;
}

/**
 * The figures, counted now: the active listings of each type in one pass over
 * listings_active_type_idx alone (100,000 listings: ~10 ms, where a scan of the table per type took
 * 80-90 ms), the money from the kept totals (app.platform_totals, one row: agent-records.ts keeps
 * it with the transactions' escrows). Callers share runs (platformUseCases).
 */
async function platformStats(db: Database, chainId: number): Promise<PlatformStats> {
  const { rows } = await db.execute<{
    active_agents: number;
    fixed: number;
    bounty: number;
    escrows: number | null;
    settled: string | null;
  }>(sql`
    SELECT
      (SELECT count(*)::int FROM app.agents WHERE is_active) AS active_agents,
      count(*) FILTER (WHERE listing_type = 'FIXED')::int AS fixed,
      count(*) FILTER (WHERE listing_type = 'BOUNTY')::int AS bounty,
      (SELECT transactions FROM app.platform_totals WHERE chain_id = ${chainId}) AS escrows,
      (SELECT settled_volume::text FROM app.platform_totals WHERE chain_id = ${chainId}) AS settled
    FROM app.listings WHERE is_active`);
  const row = rows[0];
  return {
    active_agents: row?.active_agents ?? 0,
    total_volume_usd: formatUsdc(row?.settled ?? "0"),
    total_transactions: row?.escrows ?? 0,
    listings: { FIXED: row?.fixed ?? 0, BOUNTY: row?.bounty ?? 0 },
  };
}

/**
 * The last `days` UTC days, oldest first and today last, every day present (zeros when nothing
 * happened). Volume and transactions are /api/stats' own definitions (the transactions' escrows,
 * app.transaction_escrows: settled volume and fundings), taken per day of the block that settled
 * or funded each escrow.
 */
async function dailyFigures(db: Database, chainId: number, days: number): Promise<DailyFigures[]> {
  const now = await marketNow(db, chainId);
  const since = utcDayStart(now, days - 1);
  // Both bounds are constants, so the planner can range-scan the indexes on settled_at and funded_at.
  const { rows } = await db.execute<{ day: string; volume: string | null; transactions: number | null }>(sql`
    SELECT day::text, sum(volume)::text AS volume, sum(transactions)::int AS transactions FROM (
      SELECT floor(settled_at / ${DAY_SECONDS}) AS day, seller_payout + fee_paid AS volume, 0 AS transactions
      FROM app.transaction_escrows
      WHERE status IN ('RELEASED', 'RESOLVED') AND settled_at >= ${since}
      UNION ALL
      SELECT floor(funded_at / ${DAY_SECONDS}), 0, 1
      FROM app.transaction_escrows
      WHERE funded_at >= ${since}
    ) activity
    GROUP BY day`);
  const byDay = new Map(rows.map((row) => [Number(row.day), row]));
  const firstDay = since / DAY_SECONDS;
  return Array.from({ length: days }, (_, offset) => {
    const row = byDay.get(firstDay + offset);
    const volume = row?.volume ?? "0";
    return {
      date: utcDay((firstDay + offset) * DAY_SECONDS),
      volume_wei: volume,
      volume_usdc: formatUsdc(volume),
      transactions: row?.transactions ?? 0,
    };
  });
}

/**
 * Whether the indexer process answers its own /health within a second. Without INDEXER_URL the
 * process cannot be asked: only its checkpoint (and lag) speak for it.
 */
async function indexerAnswers(indexerUrl: string | undefined): Promise<boolean> {
  if (!indexerUrl) return true;
  const response = await fetch(new URL("/health", indexerUrl), { signal: AbortSignal.timeout(1_000) }).catch(
    () => undefined,
  );
  return response?.ok === true;
}

export function platformUseCases(deps: Pick<Deps, "db" | "chain" | "config">) {
  const { db, chain, config } = deps;
  const facts: ChainFacts = {
    chainId: chain.chainId,
    escrow: chain.deployment.contracts.AgentEscrow.address,
    usdc: chain.deployment.contracts.USDC.address,
    localChain: chain.chainId === LOCAL_CHAIN_ID,
  };

  /**
   * Database, chain head and indexer: "down" if one does not answer, "degraded" if the indexer
   * lags more than MAX_HEALTHY_LAG_BLOCKS behind the head. Never throws.
   */
  async function health(): Promise<Health> {
    const database = await db.execute(sql`SELECT 1`).then(
      () => true,
      () => false,
    );
    const head = await chain.publicClient.getBlockNumber().catch(() => undefined);
    const [indexed, indexerAlive] = await Promise.all([
      database ? indexedBlock((text) => db.$client.query(text), chain.chainId).catch(() => undefined) : undefined,
      indexerAnswers(config.indexerUrl),
    ]);
    const lag = head !== undefined && indexed !== undefined ? (head > indexed ? head - indexed : 0n) : undefined;
    const indexerOk = indexed !== undefined && indexerAlive;
    const down = !database || head === undefined || !indexerOk;
    const status = down ? "down" : lag !== undefined && lag > MAX_HEALTHY_LAG_BLOCKS ? "degraded" : "ok";
    return {
      status,
      database: { ok: database },
      chain: { ok: head !== undefined, chainId: chain.chainId, headBlock: head },
      indexer: { ok: indexerOk, indexedBlock: indexed, lagBlocks: lag },
    };
  }

  /**
   * Database, chain head, indexer checkpoint (and process) side by side, each within
   * READY_PART_TIMEOUT_MS; the head is read afresh (not viem's cached block number), so a probe
   * sees the lag of now. Never throws.
   */
  async function ready(): Promise<Readiness> {
    const within = <T>(work: Promise<T>, what: string): Promise<T | undefined> =>
      timeBoxed(work, READY_PART_TIMEOUT_MS, what).catch(() => undefined);
    const [database, head, indexed, indexerAlive] = await Promise.all([
      within(
        db.execute(sql`SELECT 1`).then(() => true),
        "database",
      ),
      within(chain.publicClient.getBlockNumber({ cacheTime: 0 }), "chain head"),
      within(
        indexedBlock((text) => db.$client.query(text), chain.chainId),
        "indexer checkpoint",
      ),
      within(indexerAnswers(config.indexerUrl), "indexer process"),
    ]);
    const maxLagBlocks = config.readyMaxLagBlocks;
    const lag = head !== undefined && indexed !== undefined ? (head > indexed ? head - indexed : 0n) : undefined;
    const indexerOk = indexerAlive === true && lag !== undefined && lag <= BigInt(maxLagBlocks);
    const databaseOk = database === true;
    return {
      ready: databaseOk && head !== undefined && indexerOk,
      database: { ok: databaseOk },
      chain: { ok: head !== undefined, chainId: chain.chainId, headBlock: head },
      indexer: { ok: indexerOk, indexedBlock: indexed, lagBlocks: lag, maxLagBlocks },
    };
  }

  // Every request for the figures reads them after it asked, but requests at the same moment share
  // one count: it costs Postgres the same whoever asks.
  const stats = freshSharedRead(() => platformStats(db, chain.chainId));

  return {
    health,
    ready,
    stats,
    /** The last `days` (1..MAX_DAILY_DAYS) UTC days of volume and transactions, today last. */
    dailyStats: (days: number) => dailyFigures(db, chain.chainId, days),
    /** The figures and the deployment's facts the summary document (/api/info) states. */
    info: async () => {
      const [figures, settings] = await Promise.all([stats(), escrowSettings(db, chain.chainId)]);
      return { stats: figures, chain: facts, settings };
    },
    chainFacts: (): ChainFacts => facts,
  };
}
