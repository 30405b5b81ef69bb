import type { EscrowState } from "@agent-marketplace/indexer";
import { inArray, type SQL, sql } from "drizzle-orm";
import { chainAccountStats } from "../db/chain-views.ts";
import type { Database } from "../db/client.ts";
import { agentRecords, agents } from "../db/schema.ts";
import { type AgentScope, inScopeSql, isEmptyScope } from "./agent-scope.ts";
import { escrowColumnsOf, escrowMatchesSql, expectedTermsOf } from "./escrow-match.ts";
import { refreshKeptTiers } from "./kept-tiers.ts";
import {
  type AgentRecord,
  type RecordFigures,
  recordIsCurrent,
  recordOf,
  recordOn,
  walletStatsOn,
} from "./track-record.ts";

/*
 * Track records, kept (app.agent_records): an agent's record counts the escrows that are its
 * transactions' escrows under the rule of escrow-match.ts, in the role it held in the transaction,
 * and nothing else. chain.account_stats counts every escrow naming a wallet, and anyone may fund
 * one: a 1-wei escrow naming a seller, refunded, would cost it success rate and tier; escrows
 * between an attacker's own addresses would lift them. Neither is any transaction's escrow, so
 * neither counts here.
 *
 * A record is recomputed, never incremented: one statement counts the escrows of some agents (or
 * of all) again and writes the rows that differ, so a refresh is idempotent and mends whatever it
 * finds. It moves app.platform_totals (GET /api/stats) by the exact change of those agents' buyer
 * figures in the same statement; a full refresh sets them. The kept tiers follow from the records
 * in the same transaction (kept-tiers.ts).
 *
 * Who refreshes:
 * - the escrow event notifier, for the parties of each event it reads (the agents of the escrow's
 *   wallets and of the transaction of its reference), so lists (the directory, the leaderboard,
 *   browse's tiers, the totals) follow the indexer within one notifier interval;
 * - every API start and every KEPT_TIERS_FULL_REFRESH_MS, for every agent (a reorg, a new local
 *   chain, a bounty's seller changed by the API alone);
 * - a reader of a few agents' records (recordsOf): a record is counted as of its wallet's
 *   chain.account_stats.last_event (the newest escrow event naming the wallet), and one whose
 *   wallet has moved on is counted again before it is answered. Every escrow an agent's record
 *   counts names its wallet, so no change of its record goes unseen; a foreign escrow naming it
 *   costs one recount, and changes nothing.
 *
 * The seller's role of a transaction counts for its seller agent while the escrow names that
 * agent's wallet as seller: a bounty's escrow still naming a lapsed claimant is nobody's sale.
 */

/** What a refresh runs on: the database, or a transaction of it (the refresh is then a savepoint). */
type Runner = Pick<Database, "transaction">;

/**
 * Held by every refresh until its transaction ends: refreshes (the notifier's, each start's, a
 * reader's) run one after another, so each moves the platform totals from the rows the one before
 * it wrote. Taken before the kept tiers' lock, never after it.
 */
const AGENT_RECORDS_LOCK = sql`pg_advisory_xact_lock(hashtext('app.agent_records'))`;

/**
 * The transactions' escrows: one row per transaction whose escrow on `chainId` matches every term
 * (escrowMatchesSql), with its buyer agent, its seller agent while the escrow names that agent's
 * wallet (else null), and the escrow's columns as `e_*`. `where` narrows it, over `t`
 * (app.transactions) and `e` (chain.escrow). The join holds both forms of the reference, so
 * Postgres can go from transactions to escrows (by uuid) or from escrows to transactions (by id).
 */
export function transactionEscrowsSql(chainId: number, where: SQL = sql`TRUE`): SQL {
  return sql`
    SELECT t.id AS transaction_id, t.buyer_agent_id AS buyer_id,
      CASE WHEN e.seller = lower(s.wallet_address) THEN t.seller_agent_id END AS seller_id,
      e.status AS e_status, e.amount AS e_amount, e.disputed_by IS NOT NULL AS e_disputed,
      coalesce(e.seller_payout, 0) AS e_seller_payout, coalesce(e.buyer_payout, 0) AS e_buyer_payout,
      coalesce(e.fee_paid, 0) AS e_fee_paid, e.settled_at AS e_settled_at, e.funded_at AS e_funded_at
    FROM app.transactions t
    JOIN app.agents b ON b.id = t.buyer_agent_id
    LEFT JOIN app.agents s ON s.id = t.seller_agent_id
    JOIN chain.escrow e ON e.chain_id = ${chainId} AND e.uuid::uuid = t.id
      AND ${escrowMatchesSql(escrowColumnsOf("e"), expectedTermsOf("t", "b", "s"))}
    WHERE ${where}`;
}

/**
 * Each agent of `agentsFrom` (a query of `id` and lowercase `wallet`) with its figures over the
 * rows of `escrows` (transactionEscrowsSql), as app.agent_records' columns. Keep it in step with
 * recordFiguresOf, its TypeScript twin.
 */
function figuresSql(chainId: number, agentsFrom: SQL, escrows: SQL): SQL {
  const role = (asBuyer: boolean, condition: SQL) => sql`r.as_buyer = ${sql.raw(String(asBuyer))} AND ${condition}`;
  const count = (asBuyer: boolean, condition: SQL = sql`TRUE`) =>
    sql`(count(*) FILTER (WHERE ${role(asBuyer, condition)}))::int`;
  const total = (asBuyer: boolean, value: SQL, condition: SQL) =>
    sql`coalesce(sum(${value}) FILTER (WHERE ${role(asBuyer, condition)}), 0)`;
  const settledToSeller = sql`r.e_status IN ('RELEASED', 'RESOLVED')`;
  const sellerSide = sql`r.e_seller_payout + r.e_fee_paid`;
  return sql`
    WITH scope AS MATERIALIZED (${agentsFrom}),
    escrows AS MATERIALIZED (${escrows}),
    roles AS (
      SELECT buyer_id AS agent_id, TRUE AS as_buyer, escrows.* FROM escrows
      UNION ALL
      SELECT seller_id, FALSE, escrows.* FROM escrows WHERE seller_id IS NOT NULL
    )
    SELECT scope.id AS agent_id,
      ${count(true)} AS escrows_as_buyer,
      ${count(false)} AS escrows_as_seller,
      ${count(true, sql`r.e_status = 'RELEASED'`)} AS released_as_buyer,
      ${count(false, sql`r.e_status = 'RELEASED'`)} AS released_as_seller,
      ${count(true, sql`r.e_status = 'REFUNDED'`)} AS refunded_as_buyer,
      ${count(false, sql`r.e_status = 'REFUNDED'`)} AS refunded_as_seller,
      ${count(true, sql`r.e_disputed`)} AS disputed_as_buyer,
      ${count(false, sql`r.e_disputed`)} AS disputed_as_seller,
      ${count(true, sql`r.e_status = 'RESOLVED'`)} AS resolved_as_buyer,
      ${count(false, sql`r.e_status = 'RESOLVED'`)} AS resolved_as_seller,
      ${total(true, sellerSide, settledToSeller)} AS volume_as_buyer,
      ${total(false, sellerSide, settledToSeller)} AS volume_as_seller,
      ${total(false, sql`r.e_seller_payout`, settledToSeller)} AS earned,
      ${total(true, sql`r.e_buyer_payout`, sql`r.e_status IN ('REFUNDED', 'RESOLVED')`)} AS refunded_to_buyer,
      ${total(true, sql`r.e_amount`, sql`r.e_status IN ('FUNDED', 'DELIVERED', 'DISPUTED')`)} AS locked_as_buyer,
      (SELECT st.last_event FROM chain.account_stats st
        WHERE st.chain_id = ${chainId} AND st.address = scope.wallet) AS last_event
    FROM scope LEFT JOIN roles r ON r.agent_id = scope.id
    GROUP BY scope.id, scope.wallet`;
}

const FIGURE_COLUMNS = [
  "escrows_as_buyer",
  "escrows_as_seller",
  "released_as_buyer",
  "released_as_seller",
  "refunded_as_buyer",
  "refunded_as_seller",
  "disputed_as_buyer",
  "disputed_as_seller",
  "resolved_as_buyer",
  "resolved_as_seller",
  "volume_as_buyer",
  "volume_as_seller",
  "earned",
  "refunded_to_buyer",
  "locked_as_buyer",
] as const;

/**
 * Counts the records of the agents in `scope` again (every agent without it), writes those that
 * differ, moves the platform totals by their change (sets them, for every agent), and works out
 * their kept tiers again; answers how many records changed. Nothing changes while the indexer's
 * views do not exist yet.
 */
export async function refreshAgentRecords(db: Runner, chainId: number, scope?: AgentScope): Promise<number> {
  if (scope && isEmptyScope(scope)) return 0;
  const inScope = scope ? inScopeSql(sql.raw("a.id"), sql.raw("a.wallet_address"), scope) : sql`TRUE`;
  const agentsFrom = sql`SELECT a.id, lower(a.wallet_address) AS wallet FROM app.agents a WHERE ${inScope}`;
  const escrows = transactionEscrowsSql(
    chainId,
    scope
      ? sql`(t.buyer_agent_id IN (SELECT id FROM scope) OR t.seller_agent_id IN (SELECT id FROM scope))`
      : sql`TRUE`,
  );
  const columns = sql.raw([...FIGURE_COLUMNS, "last_event"].join(", "));
  const updates = sql.raw([...FIGURE_COLUMNS, "last_event"].map((c) => `${c} = excluded.${c}`).join(", "));
  const kept = sql.raw([...FIGURE_COLUMNS, "last_event"].map((c) => `kept.${c}`).join(", "));
  const excluded = sql.raw([...FIGURE_COLUMNS, "last_event"].map((c) => `excluded.${c}`).join(", "));
  // A full refresh sets the totals; a partial one adds its agents' change.
  const moveTotals = scope
    ? sql`transactions = totals.transactions + excluded.transactions,
          settled_volume = totals.settled_volume + excluded.settled_volume`
    : sql`transactions = excluded.transactions, settled_volume = excluded.settled_volume`;
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT ${AGENT_RECORDS_LOCK}`);
      const { rows } = await tx.execute<{ changed: number }>(sql`
        WITH fresh AS MATERIALIZED (${figuresSql(chainId, agentsFrom, escrows)}),
        before AS (
          SELECT coalesce(sum(old.escrows_as_buyer), 0) AS transactions,
            coalesce(sum(old.volume_as_buyer), 0) AS settled_volume
          FROM app.agent_records old WHERE old.agent_id IN (SELECT agent_id FROM fresh)
        ),
        written AS (
          INSERT INTO app.agent_records AS kept (agent_id, ${columns})
          SELECT agent_id, ${columns} FROM fresh
          ON CONFLICT (agent_id) DO UPDATE SET ${updates}
          WHERE (${kept}) IS DISTINCT FROM (${excluded})
          RETURNING 1
        ),
        -- Runs to completion though nothing reads it, as every data-modifying WITH query does.
        moved AS (
          INSERT INTO app.platform_totals AS totals (chain_id, transactions, settled_volume)
          SELECT ${chainId},
            (SELECT coalesce(sum(escrows_as_buyer), 0) FROM fresh) - ${scope ? sql`before.transactions` : sql`0`},
            (SELECT coalesce(sum(volume_as_buyer), 0) FROM fresh) - ${scope ? sql`before.settled_volume` : sql`0`}
          FROM before
          ON CONFLICT (chain_id) DO UPDATE SET ${moveTotals}
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM written)::int AS changed`);
      await refreshKeptTiers(tx, scope);
      return rows[0]?.changed ?? 0;
    });
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name: the indexer has not published its views.
    const code =
      (error as { cause?: { code?: string }; code?: string }).cause?.code ?? (error as { code?: string }).code;
    if (code === "42P01" || code === "3F000") return 0;
    throw error;
  }
}

/** The kept records of `agentIds`, read with whether each is still current. */
function readRecords(db: Database, chainId: number, agentIds: string[]) {
  return db
    .select({ id: agents.id, record: agentRecords, current: recordIsCurrent })
    .from(agents)
    .leftJoin(agentRecords, recordOn)
    .leftJoin(chainAccountStats, walletStatsOn(chainId))
    .where(inArray(agents.id, agentIds));
}

/**
 * The record of each agent of `agentIds` (none for an unknown id), counted again first where its
 * wallet's escrows moved since it was kept.
 */
export async function recordsOf(db: Database, chainId: number, agentIds: string[]): Promise<Map<string, AgentRecord>> {
  const ids = [...new Set(agentIds)];
  if (ids.length === 0) return new Map();
  let rows = await readRecords(db, chainId, ids);
  const stale = rows.filter((row) => !row.current).map((row) => row.id);
  if (stale.length > 0) {
    await refreshAgentRecords(db, chainId, { agentIds: stale });
    rows = await readRecords(db, chainId, ids);
  }
  return new Map(rows.map((row) => [row.id, recordOf(row.record)]));
}

/** One transaction's escrow as the TypeScript twin counts it (transactionEscrowsSql's row). */
export interface TransactionEscrow {
  buyerAgentId: string;
  /** The transaction's seller agent while the escrow names its wallet; null otherwise. */
  sellerAgentId: string | null;
  status: EscrowState;
  amount: bigint;
  disputed: boolean;
  sellerPayout: bigint;
  buyerPayout: bigint;
  feePaid: bigint;
}

/** figuresSql in TypeScript: `agentId`'s record over its transactions' escrows. */
export function recordFiguresOf(agentId: string, escrows: readonly TransactionEscrow[]): RecordFigures {
  const figures = {
    escrowsAsBuyer: 0,
    escrowsAsSeller: 0,
    releasedAsBuyer: 0,
    releasedAsSeller: 0,
    refundedAsBuyer: 0,
    refundedAsSeller: 0,
    disputedAsBuyer: 0,
    disputedAsSeller: 0,
    resolvedAsBuyer: 0,
    resolvedAsSeller: 0,
    volumeAsBuyer: 0n,
    volumeAsSeller: 0n,
    earned: 0n,
    refundedToBuyer: 0n,
    lockedAsBuyer: 0n,
  };
  for (const escrow of escrows) {
    const settledToSeller = escrow.status === "RELEASED" || escrow.status === "RESOLVED";
    const sellerSide = settledToSeller ? escrow.sellerPayout + escrow.feePaid : 0n;
    if (escrow.buyerAgentId === agentId) {
      figures.escrowsAsBuyer += 1;
      if (escrow.status === "RELEASED") figures.releasedAsBuyer += 1;
      if (escrow.status === "REFUNDED") figures.refundedAsBuyer += 1;
      if (escrow.status === "RESOLVED") figures.resolvedAsBuyer += 1;
      if (escrow.disputed) figures.disputedAsBuyer += 1;
      figures.volumeAsBuyer += sellerSide;
      if (escrow.status === "REFUNDED" || escrow.status === "RESOLVED") figures.refundedToBuyer += escrow.buyerPayout;
      if (escrow.status === "FUNDED" || escrow.status === "DELIVERED" || escrow.status === "DISPUTED") {
        figures.lockedAsBuyer += escrow.amount;
      }
    }
    if (escrow.sellerAgentId === agentId) {
      figures.escrowsAsSeller += 1;
      if (escrow.status === "RELEASED") figures.releasedAsSeller += 1;
      if (escrow.status === "REFUNDED") figures.refundedAsSeller += 1;
      if (escrow.status === "RESOLVED") figures.resolvedAsSeller += 1;
      if (escrow.disputed) figures.disputedAsSeller += 1;
      figures.volumeAsSeller += sellerSide;
      if (settledToSeller) figures.earned += escrow.sellerPayout;
    }
  }
  const wei = (value: bigint) => value.toString();
  return {
    ...figures,
    volumeAsBuyer: wei(figures.volumeAsBuyer),
    volumeAsSeller: wei(figures.volumeAsSeller),
    earned: wei(figures.earned),
    refundedToBuyer: wei(figures.refundedToBuyer),
    lockedAsBuyer: wei(figures.lockedAsBuyer),
  };
}
