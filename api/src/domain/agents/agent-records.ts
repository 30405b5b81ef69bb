import type { EscrowState } from "@agent-marketplace/indexer";
import { inArray, type SQL, sql } from "drizzle-orm";
import { chainAccountStats } from "../../db/chain-views.ts";
import type { Database } from "../../db/client.ts";
import { agentRecords, agents } from "../../db/schema.ts";
import { type AgentScope, inScopeSql, isEmptyScope } from "../reads/agent-scope.ts";
import { refreshKeptTiers } from "../reads/kept-tiers.ts";
import {
  type AgentRecord,
  type RecordFigures,
  recordIsCurrent,
  recordOf,
  recordOn,
  walletStatsOn,
} from "../reads/track-record.ts";
import { type ExpectedTermColumns, escrowColumnsOf, escrowMatchesSql } from "../transactions/escrow-match.ts";

/*
 * Track records, kept: an agent's record counts the escrows that are its transactions' escrows
 * under the rule of escrow-match.ts, in the role it held in the transaction, and nothing else.
 * chain.account_stats counts every escrow naming a wallet, and anyone may fund one: a 1-wei escrow
 * naming a seller, refunded, would cost it success rate and tier; escrows between an attacker's own
 * addresses would lift them. Neither is any transaction's escrow, so neither counts here.
 *
 * Two kept tables, both recomputed (never incremented), so a refresh is idempotent and mends
 * whatever it finds:
 * - app.transaction_escrows: each transaction's escrow while it matches, with what is counted of
 *   it. One statement matches some transactions (or all) again and writes what differs, and moves
 *   app.platform_totals (GET /api/stats) by the exact change (a full refresh sets them). The daily
 *   figures and a period's leaderboard read its rows by day.
 * - app.agent_records: each agent's figures over those rows, one statement for some agents (or all);
 *   the kept tiers follow from them in the same transaction (kept-tiers.ts).
 *
 * Who refreshes:
 * - the escrow event notifier, for the transaction each event's reference names and the agents of
 *   the escrow's wallets and of that transaction, so lists (the directory, the leaderboard,
 *   browse's tiers, the totals, the daily figures) follow the indexer within one notifier interval;
 * - every API start and every KEPT_TIERS_FULL_REFRESH_MS, everything (a reorg, a new local chain,
 *   a bounty's seller changed by the API alone);
 * - a reader of a few agents' records (recordsOf): a record is counted as of its wallet's
 *   chain.account_stats.last_event (the newest escrow event naming the wallet), and one whose
 *   wallet has moved on is counted again, with its transactions' escrows, before it is answered.
 *   Every escrow an agent's record counts names its wallet, so no change of its record goes
 *   unseen; a foreign escrow naming it costs one recount, and changes nothing.
 *
 * The seller's role of a transaction counts for its seller agent while the escrow names that
 * agent's wallet as seller: a bounty's escrow still naming a lapsed claimant is nobody's sale.
 */

/** What a refresh runs on: the database, or a transaction of it (the refresh is then a savepoint). */
type Runner = Pick<Database, "transaction">;
/** What one of its statements runs on. */
type Executor = Pick<Database, "execute">;

/**
 * What a refresh counts again: the records of the agents of `agentIds` and `wallets`, the escrows of
 * `transactionIds` (and the records of their parties), and those of every transaction of `agentIds`.
 */
export interface RecordsScope extends AgentScope {
  transactionIds?: readonly string[];
}

/**
 * Held by every refresh until its transaction ends: refreshes (the notifier's, each start's, a
 * reader's) run one after another, so each moves the platform totals from the rows the one before
 * it wrote. Taken before the kept tiers' lock, never after it.
 */
const AGENT_RECORDS_LOCK = sql`pg_advisory_xact_lock(hashtext('app.agent_records'))`;

/**
 * The transactions' escrows: one row per transaction whose escrow on `chainId` matches every term
 * (escrowMatchesSql), with its buyer agent, its seller agent while the escrow names that agent's
 * wallet (else null), and the escrow's columns as `e_*`. `transactions` replaces app.transactions
 * as the source of `t` (some transactions, say).
 *
 * Each transaction meets its agents and listing first, fenced (OFFSET 0), and only then the escrows
 * of its reference (by uuid) under the rule: with the escrow first, the rule's equalities made
 * Postgres expect one row and look every agent and listing up one by one (100,000 transactions: 2 s).
 */
export function transactionEscrowsSql(chainId: number, transactions: SQL = sql`app.transactions`): SQL {
  const x = (column: string) => sql.raw(`x.${column}`);
  const expected: ExpectedTermColumns = {
    transactionId: x("id"),
    amountWei: x("amount_wei"),
    deadline: x("deadline"),
    disputeWindowSeconds: x("dispute_window_seconds"),
    buyerWallet: x("buyer_wallet"),
    sellerWallet: x("seller_wallet"),
    isBounty: x("is_bounty"),
  };
  return sql`
    SELECT x.id AS transaction_id, x.buyer_agent_id AS buyer_id,
      CASE WHEN e.seller = lower(x.seller_wallet) THEN x.seller_agent_id END AS seller_id,
      e.status AS e_status, e.amount AS e_amount, e.disputed_by IS NOT NULL AS e_disputed,
      coalesce(e.seller_payout, 0) AS e_seller_payout, coalesce(e.buyer_payout, 0) AS e_buyer_payout,
      coalesce(e.fee_paid, 0) AS e_fee_paid, e.funded_at AS e_funded_at, e.settled_at AS e_settled_at
    FROM (
      SELECT t.id, t.buyer_agent_id, t.seller_agent_id, t.amount_wei, t.deadline, t.dispute_window_seconds,
        b.wallet_address AS buyer_wallet, s.wallet_address AS seller_wallet,
        coalesce(l.listing_type = 'BOUNTY', FALSE) AS is_bounty
      FROM ${transactions} t
      JOIN app.agents b ON b.id = t.buyer_agent_id
      LEFT JOIN app.agents s ON s.id = t.seller_agent_id
      LEFT JOIN app.listings l ON l.id = t.listing_id
      OFFSET 0) x
    JOIN chain.escrow e ON e.chain_id = ${chainId} AND e.uuid = x.id::text
      AND ${escrowMatchesSql(escrowColumnsOf("e"), expected)}`;
}

const KEPT_ESCROW_COLUMNS = [
  "buyer_agent_id",
  "seller_agent_id",
  "status",
  "amount",
  "disputed",
  "seller_payout",
  "buyer_payout",
  "fee_paid",
  "funded_at",
  "settled_at",
] as const;

/**
 * Matches the transactions of `scope` again (every one without it) and writes what differs in
 * app.transaction_escrows, moving the platform totals by the change; answers the agents whose rows
 * were among them, before or after (their records may differ).
 */
async function refreshTransactionEscrows(tx: Executor, chainId: number, scope?: RecordsScope): Promise<string[]> {
  // Each side of an agent from its own index: an OR of the two made Postgres scan every transaction.
  const transactionIds = sql.param([...new Set(scope?.transactionIds ?? [])]);
  const agentIds = sql.param([...new Set(scope?.agentIds ?? [])]);
  const chosen = sql`
    SELECT mine.id FROM app.transactions mine WHERE mine.id = ANY(${transactionIds}::uuid[])
    UNION
    SELECT mine.id FROM app.transactions mine WHERE mine.buyer_agent_id = ANY(${agentIds}::uuid[])
    UNION
    SELECT mine.id FROM app.transactions mine WHERE mine.seller_agent_id = ANY(${agentIds}::uuid[])`;
  const columns = sql.raw(KEPT_ESCROW_COLUMNS.join(", "));
  const freshColumns = sql.raw(KEPT_ESCROW_COLUMNS.map((c) => `fresh.${c}`).join(", "));
  const oldColumns = sql.raw(KEPT_ESCROW_COLUMNS.map((c) => `old.${c}`).join(", "));
  const updates = sql.raw(KEPT_ESCROW_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", "));
  const settledVolume = (alias: string) =>
    sql.raw(`coalesce(sum(${alias}.seller_payout + ${alias}.fee_paid)
      FILTER (WHERE ${alias}.status IN ('RELEASED', 'RESOLVED')), 0)`);
  // A full refresh sets the totals; a partial one adds the change of its transactions' rows.
  const moveTotals = scope
    ? sql`transactions = totals.transactions + excluded.transactions,
          settled_volume = totals.settled_volume + excluded.settled_volume`
    : sql`transactions = excluded.transactions, settled_volume = excluded.settled_volume`;
  const { rows } = await tx.execute<{ agent_id: string }>(sql`
    WITH chosen AS MATERIALIZED (${scope ? chosen : sql`SELECT id FROM app.transactions`}),
    fresh AS MATERIALIZED (
      SELECT transaction_id, buyer_id AS buyer_agent_id, seller_id AS seller_agent_id, e_status AS status,
        e_amount AS amount, e_disputed AS disputed, e_seller_payout AS seller_payout,
        e_buyer_payout AS buyer_payout, e_fee_paid AS fee_paid, e_funded_at AS funded_at, e_settled_at AS settled_at
      FROM (${transactionEscrowsSql(
        chainId,
        scope ? sql`(SELECT tr.* FROM chosen JOIN app.transactions tr ON tr.id = chosen.id)` : undefined,
      )}) matched),
    old AS MATERIALIZED (
      SELECT * FROM app.transaction_escrows WHERE ${scope ? sql`transaction_id IN (SELECT id FROM chosen)` : sql`TRUE`}),
    gone AS (
      DELETE FROM app.transaction_escrows
      WHERE ${scope ? sql`transaction_id IN (SELECT transaction_id FROM old) AND` : sql``}
        transaction_id NOT IN (SELECT transaction_id FROM fresh)),
    -- Only the rows that differ are written: found by one join with the old ones, not by a
    -- conflict with each kept row.
    written AS (
      INSERT INTO app.transaction_escrows AS kept (transaction_id, ${columns})
      SELECT fresh.transaction_id, ${freshColumns} FROM fresh
      LEFT JOIN old ON old.transaction_id = fresh.transaction_id
      WHERE old.transaction_id IS NULL OR (${oldColumns}) IS DISTINCT FROM (${freshColumns})
      ON CONFLICT (transaction_id) DO UPDATE SET ${updates}),
    -- Runs to completion though nothing reads it, as every data-modifying WITH query does.
    moved AS (
      INSERT INTO app.platform_totals AS totals (chain_id, transactions, settled_volume)
      SELECT ${chainId},
        (SELECT count(*) FROM fresh) - ${scope ? sql`(SELECT count(*) FROM old)` : sql`0`},
        (SELECT ${settledVolume("fresh")} FROM fresh) - ${scope ? sql`(SELECT ${settledVolume("old")} FROM old)` : sql`0`}
      ON CONFLICT (chain_id) DO UPDATE SET ${moveTotals})
    SELECT DISTINCT agent_id FROM (
      SELECT buyer_agent_id AS agent_id FROM old UNION ALL SELECT seller_agent_id FROM old
      UNION ALL SELECT buyer_agent_id FROM fresh UNION ALL SELECT seller_agent_id FROM fresh) parties
    WHERE agent_id IS NOT NULL AND ${scope ? sql`TRUE` : sql`FALSE`}`);
  return rows.map((row) => row.agent_id);
}

/**
 * Each agent of `agentsFrom` (a query of `id` and lowercase `wallet`) with its figures over its rows
 * of app.transaction_escrows, as app.agent_records' columns. Keep it in step with recordFiguresOf,
 * its TypeScript twin.
 */
function figuresSql(chainId: number, agentsFrom: SQL, all: boolean): SQL {
  const role = (asBuyer: boolean, condition: SQL) => sql`r.as_buyer = ${sql.raw(String(asBuyer))} AND ${condition}`;
  const count = (asBuyer: boolean, condition: SQL = sql`TRUE`) =>
    sql`(count(*) FILTER (WHERE ${role(asBuyer, condition)}))::int`;
  const total = (asBuyer: boolean, value: SQL, condition: SQL) =>
    sql`coalesce(sum(${value}) FILTER (WHERE ${role(asBuyer, condition)}), 0)`;
  const settledToSeller = sql`r.status IN ('RELEASED', 'RESOLVED')`;
  const sellerSide = sql`r.seller_payout + r.fee_paid`;
  // Each agent's rows from the index of its side (all of them, for every agent).
  const side = (column: string) =>
    all
      ? sql.raw(`app.transaction_escrows kept WHERE kept.${column} IS NOT NULL`)
      : sql.raw(`scope JOIN app.transaction_escrows kept ON kept.${column} = scope.id`);
  const figures = FIGURE_COLUMNS.filter((column) => column !== "last_event");
  // Grouped by agent alone (a hash of the rows), then joined to every agent of the scope.
  return sql`
    WITH scope AS MATERIALIZED (${agentsFrom}),
    roles AS (
      SELECT kept.buyer_agent_id AS agent_id, TRUE AS as_buyer, kept.* FROM ${side("buyer_agent_id")}
      UNION ALL
      SELECT kept.seller_agent_id, FALSE, kept.* FROM ${side("seller_agent_id")}
    ),
    counted AS (
      SELECT r.agent_id,
        ${count(true)} AS escrows_as_buyer,
        ${count(false)} AS escrows_as_seller,
        ${count(true, sql`r.status = 'RELEASED'`)} AS released_as_buyer,
        ${count(false, sql`r.status = 'RELEASED'`)} AS released_as_seller,
        ${count(true, sql`r.status = 'REFUNDED'`)} AS refunded_as_buyer,
        ${count(false, sql`r.status = 'REFUNDED'`)} AS refunded_as_seller,
        ${count(true, sql`r.disputed`)} AS disputed_as_buyer,
        ${count(false, sql`r.disputed`)} AS disputed_as_seller,
        ${count(true, sql`r.status = 'RESOLVED'`)} AS resolved_as_buyer,
        ${count(false, sql`r.status = 'RESOLVED'`)} AS resolved_as_seller,
        ${count(true, sql`r.status = 'RELEASED' AND NOT r.disputed`)} AS released_undisputed_as_buyer,
        ${count(false, sql`r.status = 'RELEASED' AND NOT r.disputed`)} AS released_undisputed_as_seller,
        ${count(true, sql`r.status = 'DISPUTED'`)} AS in_dispute_as_buyer,
        ${count(false, sql`r.status = 'DISPUTED'`)} AS in_dispute_as_seller,
        ${total(true, sellerSide, settledToSeller)} AS volume_as_buyer,
        ${total(false, sellerSide, settledToSeller)} AS volume_as_seller,
        ${total(false, sql`r.seller_payout`, settledToSeller)} AS earned,
        ${total(true, sql`r.buyer_payout`, sql`r.status IN ('REFUNDED', 'RESOLVED')`)} AS refunded_to_buyer,
        ${total(true, sql`r.amount`, sql`r.status IN ('FUNDED', 'DELIVERED', 'DISPUTED')`)} AS locked_as_buyer
      FROM roles r GROUP BY r.agent_id
    )
    SELECT scope.id AS agent_id,
      ${sql.raw(figures.map((column) => `coalesce(counted.${column}, 0) AS ${column}`).join(",\n      "))},
      (SELECT st.last_event FROM chain.account_stats st
        WHERE st.chain_id = ${chainId} AND st.address = scope.wallet) AS last_event
    FROM scope LEFT JOIN counted ON counted.agent_id = scope.id`;
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
  "released_undisputed_as_buyer",
  "released_undisputed_as_seller",
  "in_dispute_as_buyer",
  "in_dispute_as_seller",
  "volume_as_buyer",
  "volume_as_seller",
  "earned",
  "refunded_to_buyer",
  "locked_as_buyer",
  "last_event",
] as const;

/** Counts the records of the agents in `scope` again (every agent without it); answers how many changed. */
async function refreshRecords(tx: Executor, chainId: number, scope?: AgentScope): Promise<number> {
  const inScope = scope ? inScopeSql(sql.raw("a.id"), scope) : sql`TRUE`;
  const agentsFrom = sql`SELECT a.id, lower(a.wallet_address) AS wallet FROM app.agents a WHERE ${inScope}`;
  const columns = sql.raw(FIGURE_COLUMNS.join(", "));
  const updates = sql.raw(FIGURE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", "));
  const kept = sql.raw(FIGURE_COLUMNS.map((c) => `kept.${c}`).join(", "));
  const excluded = sql.raw(FIGURE_COLUMNS.map((c) => `excluded.${c}`).join(", "));
  const result = await tx.execute(sql`
    INSERT INTO app.agent_records AS kept (agent_id, ${columns})
    SELECT agent_id, ${columns} FROM (${figuresSql(chainId, agentsFrom, scope === undefined)}) fresh
    ON CONFLICT (agent_id) DO UPDATE SET ${updates}
    WHERE (${kept}) IS DISTINCT FROM (${excluded})`);
  return result.rowCount ?? 0;
}

/**
 * Counts again what `scope` names (everything without it): the transactions' escrows, then the
 * records of the agents named and of the parties of those transactions, then their kept tiers;
 * answers how many records changed. Nothing changes while the indexer's views do not exist yet.
 */
export async function refreshAgentRecords(db: Runner, chainId: number, scope?: RecordsScope): Promise<number> {
  if (scope && isEmptyScope(scope) && !scope.transactionIds?.length) return 0;
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT ${AGENT_RECORDS_LOCK}`);
      const parties = await refreshTransactionEscrows(tx, chainId, scope);
      const agentScope = scope && { agentIds: [...(scope.agentIds ?? []), ...parties], wallets: scope.wallets };
      const changed = await refreshRecords(tx, chainId, agentScope);
      await refreshKeptTiers(tx, agentScope);
      return changed;
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
    releasedUndisputedAsBuyer: 0,
    releasedUndisputedAsSeller: 0,
    inDisputeAsBuyer: 0,
    inDisputeAsSeller: 0,
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
      if (escrow.status === "RELEASED" && !escrow.disputed) figures.releasedUndisputedAsBuyer += 1;
      if (escrow.status === "DISPUTED") figures.inDisputeAsBuyer += 1;
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
      if (escrow.status === "RELEASED" && !escrow.disputed) figures.releasedUndisputedAsSeller += 1;
      if (escrow.status === "DISPUTED") figures.inDisputeAsSeller += 1;
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
