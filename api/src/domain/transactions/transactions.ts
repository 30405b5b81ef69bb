import type { EscrowState } from "@agent-marketplace/indexer";
import { and, desc, eq, getViewSelectedFields, gt, isNull, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, union } from "drizzle-orm/pg-core";
import { chainEscrow } from "../../db/chain-views.ts";
import type { Database } from "../../db/client.ts";
import { literalLimit } from "../../db/compiled-statement.ts";
import { agents, disputes, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { reasonOnChain } from "../disputes/dispute-reason.ts";
import { isoMillisSql, type JsonText, jsonLiteral, jsonObject, jsonOrNull, jsonString } from "../reads/json-text.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { forbidden, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { agentIdsOwnedBy, type OwnedAgent, ownsAgent } from "../shared/owned-agents.ts";
import { escrowIdOfRow } from "./escrow-id.ts";
import { escrowMatchesSql, isBountyTransactionSql } from "./escrow-match.ts";
import { deriveTransactionState, type TransactionState } from "./transaction-state.ts";

/*
 * Reading transactions: the app's row, its escrow as the indexer sees it (chain.escrow) and the
 * names of both parties, in one query. The state is derived from the escrow, never stored, and a
 * state filter is a condition on the escrow columns, so it runs in SQL before the LIMIT.
 */

const buyerAgent = alias(agents, "buyer_agent");
const sellerAgent = alias(agents, "seller_agent");

/** A transaction row's columns: the table's, or the same in a subquery. */
type TransactionColumns = { [K in keyof typeof transactions.$inferSelect]: SQLWrapper };

/** Where the escrows live: the chain the API serves and its escrow contract. */
export interface EscrowLocation {
  chainId: number;
  contractAddress: string;
}

export interface TransactionQuery {
  /** Buyer or seller. */
  agentId?: string;
  /** An owner's wallet address (lowercase): one of the agents it owns is the buyer or the seller. */
  ownerAddress?: string;
  state?: TransactionState;
  id?: string;
  limit: number;
  /** The `next_cursor` of the previous page; 400 for one we did not make. */
  cursor?: string;
}

/**
 * The escrow of the transaction row being read: a LATERAL subquery, probed once per row (by
 * chain.escrow's uuid index) as the rows come newest first from transactions_created_idx. A plain
 * join let the planner hash-join every transaction with every escrow of a state (hundreds of ms at
 * 100k rows, seconds for PENDING); this way a page stops after `limit` matches. Only an escrow
 * whose every term matches the row is its escrow (escrow-match.ts): one funded by anyone else, or
 * with other terms, leaves it PENDING.
 */
function escrowOfRow(
  db: Database,
  chainId: number,
  row: Pick<TransactionColumns, "id" | "amountWei" | "deadline" | "disputeWindowSeconds" | "listingId"> = transactions,
) {
  return db
    .select(getViewSelectedFields(chainEscrow))
    .from(chainEscrow)
    .where(
      and(
        eq(chainEscrow.chainId, chainId),
        sql`${chainEscrow.uuid} = ${row.id}::text`,
        escrowMatchesSql(chainEscrow, {
          transactionId: row.id,
          amountWei: row.amountWei,
          deadline: row.deadline,
          disputeWindowSeconds: row.disputeWindowSeconds,
          buyerWallet: buyerAgent.walletAddress,
          sellerWallet: sellerAgent.walletAddress,
          isBounty: isBountyTransactionSql(row.listingId),
        }),
      ),
    )
    .limit(1)
    .as("tx_escrow");
}

type EscrowColumns = ReturnType<typeof escrowOfRow>;
const escrowKeys = Object.keys(getViewSelectedFields(chainEscrow)) as (keyof EscrowColumns["_"]["selectedFields"])[];

/** The subquery's columns as one nested object of the select (null when there is no escrow). */
function escrowFields(escrow: EscrowColumns) {
  return Object.fromEntries(escrowKeys.map((key) => [key, escrow[key]])) as {
    [K in (typeof escrowKeys)[number]]: EscrowColumns[K];
  };
}

/** The SQL condition of a derived state (deriveTransactionState, as a WHERE clause). */
function stateCondition(escrow: EscrowColumns, state: TransactionState): SQL {
  const status = (value: EscrowState) => eq(escrow.status, value);
  switch (state) {
    case "PENDING":
      return isNull(escrow.id);
    case "RELEASED":
      return or(status("RELEASED"), and(status("RESOLVED"), gt(escrow.resolutionSellerBps, 0))) as SQL;
    case "REFUNDED":
      return or(
        status("REFUNDED"),
        and(status("RESOLVED"), sql`coalesce(${escrow.resolutionSellerBps}, 0) = 0`),
      ) as SQL;
    default:
      return status(state);
  }
}

/** The select of transactions with their escrow and both parties' names, before any filter. */
function selectTransactions(db: Database, chainId: number) {
  const escrow = escrowOfRow(db, chainId);
  const query = db
    .select({
      transaction: transactions,
      escrow: escrowFields(escrow),
      buyerName: buyerAgent.name,
      buyerWallet: buyerAgent.walletAddress,
      sellerName: sellerAgent.name,
      disputeReason: disputes.reason,
      rulingNote: disputes.rulingNote,
      position: timestampPosition(transactions.createdAt),
    })
    .from(transactions)
    .innerJoin(buyerAgent, eq(buyerAgent.id, transactions.buyerAgentId))
    .leftJoin(sellerAgent, eq(sellerAgent.id, transactions.sellerAgentId))
    .leftJoin(disputes, eq(disputes.transactionId, transactions.id))
    .leftJoinLateral(escrow, sql`true`);
  return { escrow, query };
}

/**
 * Transactions newest first (created_at, then id, both descending), with their escrow and the
 * parties' names; at most `limit` rows.
 */
export function queryTransactions(db: Database, chainId: number, query: TransactionQuery) {
  const { escrow, query: select } = selectTransactions(db, chainId);
  const conditions: SQL[] = [];
  if (query.id) conditions.push(eq(transactions.id, query.id));
  if (query.agentId) {
    conditions.push(
      or(eq(transactions.buyerAgentId, query.agentId), eq(transactions.sellerAgentId, query.agentId)) as SQL,
    );
  }
  if (query.ownerAddress) {
    const owned = agentIdsOwnedBy(query.ownerAddress);
    conditions.push(
      or(sql`${transactions.buyerAgentId} IN (${owned})`, sql`${transactions.sellerAgentId} IN (${owned})`) as SQL,
    );
  }
  if (query.state) conditions.push(stateCondition(escrow, query.state));
  const older = olderThanCursor(transactions.createdAt, transactions.id, query.cursor);
  if (older) conditions.push(older);
  return select
    .where(and(...conditions))
    .orderBy(desc(transactions.createdAt), desc(transactions.id))
    .limit(query.limit);
}

/** What {@link toTransaction} reads of a transaction's row: all a profile's JSON carries of it. */
export interface TransactionFacts {
  transaction: Pick<
    TransactionRow["transaction"],
    | "id"
    | "listingId"
    | "amountWei"
    | "currency"
    | "description"
    | "deadline"
    | "createdAt"
    | "buyerAgentId"
    | "sellerAgentId"
    | "disputeWindowSeconds"
    | "escrowRef"
  >;
  escrow: Pick<
    NonNullable<TransactionRow["escrow"]>,
    | "status"
    | "seller"
    | "deadline"
    | "disputeWindow"
    | "deliveredAt"
    | "deliverableHash"
    | "disputedBy"
    | "disputeReasonHash"
    | "disputedAt"
    | "resolutionSellerBps"
    | "sellerPayout"
    | "buyerPayout"
    | "feePaid"
    | "feeBps"
    | "fundedTxHash"
    | "assignedTxHash"
    | "deliveredTxHash"
    | "disputedTxHash"
    | "settledTxHash"
  > | null;
  buyerName: string;
  /** The buyer's wallet: the escrow's id on chain is derived from it (`escrowIdOf(buyer, ref)`). */
  buyerWallet: string;
  sellerName: string | null;
  disputeReason: string | null;
  rulingNote: string | null;
}

/** The JSON text of each field of `T`. */
type JsonFieldsOf<T> = { [K in keyof T]-?: JsonText };

/** A string (or text cast) that may be null. */
const stringOrNull = (value: SQLWrapper) => jsonOrNull(jsonString(value));
/** An integer that may be null. */
const numberOrNull = (value: SQLWrapper) => jsonOrNull(jsonLiteral(value));

/**
 * One transaction's facts as JSON text, by concatenation (domain/reads/json-text.ts): wei as strings (they
 * pass 2^53), timestamps as toISOString writes them (revived by {@link transactionFactsFromJson}).
 */
function transactionFactsJson(row: TransactionColumns, escrow: EscrowColumns): JsonText {
  const transaction: JsonFieldsOf<TransactionFacts["transaction"]> = {
    id: stringOrNull(row.id),
    listingId: stringOrNull(row.listingId),
    amountWei: stringOrNull(row.amountWei),
    currency: stringOrNull(row.currency),
    description: stringOrNull(row.description),
    deadline: stringOrNull(isoMillisSql(row.deadline)),
    createdAt: stringOrNull(isoMillisSql(row.createdAt)),
    buyerAgentId: stringOrNull(row.buyerAgentId),
    sellerAgentId: stringOrNull(row.sellerAgentId),
    disputeWindowSeconds: numberOrNull(row.disputeWindowSeconds),
    escrowRef: stringOrNull(row.escrowRef),
  };
  const escrowJson: JsonFieldsOf<NonNullable<TransactionFacts["escrow"]>> = {
    status: stringOrNull(escrow.status),
    seller: stringOrNull(escrow.seller),
    deadline: stringOrNull(escrow.deadline),
    disputeWindow: numberOrNull(escrow.disputeWindow),
    deliveredAt: stringOrNull(escrow.deliveredAt),
    deliverableHash: stringOrNull(escrow.deliverableHash),
    disputedBy: stringOrNull(escrow.disputedBy),
    disputeReasonHash: stringOrNull(escrow.disputeReasonHash),
    disputedAt: stringOrNull(escrow.disputedAt),
    resolutionSellerBps: numberOrNull(escrow.resolutionSellerBps),
    sellerPayout: stringOrNull(escrow.sellerPayout),
    buyerPayout: stringOrNull(escrow.buyerPayout),
    feePaid: stringOrNull(escrow.feePaid),
    feeBps: numberOrNull(escrow.feeBps),
    fundedTxHash: stringOrNull(escrow.fundedTxHash),
    assignedTxHash: stringOrNull(escrow.assignedTxHash),
    deliveredTxHash: stringOrNull(escrow.deliveredTxHash),
    disputedTxHash: stringOrNull(escrow.disputedTxHash),
    settledTxHash: stringOrNull(escrow.settledTxHash),
  };
  return jsonObject({
    transaction: jsonObject(transaction),
    escrow: jsonOrNull(sql`CASE WHEN ${escrow.id} IS NOT NULL THEN ${jsonObject(escrowJson)} END` as JsonText),
    buyerName: stringOrNull(buyerAgent.name),
    buyerWallet: stringOrNull(buyerAgent.walletAddress),
    sellerName: stringOrNull(sellerAgent.name),
    disputeReason: stringOrNull(disputes.reason),
    rulingNote: stringOrNull(disputes.rulingNote),
  } satisfies JsonFieldsOf<TransactionFacts>);
}

/**
 * The `limit` newest transactions of the agent whose id is `agentId` (a column of the enclosing
 * statement, or a parameter), as buyer or seller, newest first: one JSON text of
 * {@link TransactionFacts} (read it with {@link transactionFactsFromJson}). A profile reads them
 * inside its own statement: one round trip, and one text to decode instead of ~45 columns a row.
 */
export function newestTransactionsJson(db: Database, chainId: number, agentId: SQLWrapper, limit: number): SQL<string> {
  // The newest rows first, then their escrows and parties: joining first would join every one of the agent's transactions.
  // The newest as buyer and the newest as seller, each read in order from its own index, then the
  // newest of both: with one condition (buyer OR seller), Postgres read every transaction of the
  // agent and sorted them all (5,000 sales: 1.3 ms, against 0.3 ms for a few).
  const newestAs = (party: SQLWrapper) =>
    db
      .select()
      .from(transactions)
      .where(eq(party, agentId))
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(literalLimit(limit));
  const both = union(newestAs(transactions.buyerAgentId), newestAs(transactions.sellerAgentId)).as("both");
  const newest = db
    .select()
    .from(both)
    .orderBy(desc(both.createdAt), desc(both.id))
    .limit(literalLimit(limit))
    .as("newest");
  const escrow = escrowOfRow(db, chainId, newest);
  // selectTransactions' joins, over the newest rows, selecting only the JSON and the order it is aggregated in.
  const rows = db
    .select({ facts: transactionFactsJson(newest, escrow).as("facts"), createdAt: newest.createdAt, id: newest.id })
    .from(newest)
    .innerJoin(buyerAgent, eq(buyerAgent.id, newest.buyerAgentId))
    .leftJoin(sellerAgent, eq(sellerAgent.id, newest.sellerAgentId))
    .leftJoin(disputes, eq(disputes.transactionId, newest.id))
    .leftJoinLateral(escrow, sql`true`)
    .as("newest_transactions");
  return sql<string>`(SELECT '[' || coalesce(string_agg(${rows.facts}, ',' ORDER BY ${rows.createdAt} DESC, ${rows.id} DESC), '') || ']' FROM ${rows})`;
}

/** The facts of {@link newestTransactionsJson}'s text, with their timestamps as dates again. */
export function transactionFactsFromJson(json: string): TransactionFacts[] {
  const facts = JSON.parse(json) as Array<
    Omit<TransactionFacts, "transaction"> & {
      transaction: Omit<TransactionFacts["transaction"], "deadline" | "createdAt"> & {
        deadline: string;
        createdAt: string;
      };
    }
  >;
  return facts.map((row) => ({
    ...row,
    transaction: {
      ...row.transaction,
      deadline: new Date(row.transaction.deadline),
      createdAt: new Date(row.transaction.createdAt),
    },
  }));
}

export type TransactionRow = Awaited<ReturnType<typeof queryTransactions>>[number];

/** A transaction row's state, derived from its indexed escrow (PENDING without one). */
export function stateOfRow(row: {
  escrow: Pick<NonNullable<TransactionFacts["escrow"]>, "status" | "resolutionSellerBps"> | null;
}): TransactionState {
  const { escrow } = row;
  return deriveTransactionState(
    escrow ? { status: escrow.status as EscrowState, resolutionSellerBps: escrow.resolutionSellerBps } : undefined,
  );
}

/** Unix seconds (a numeric column as a string) to ISO 8601. */
function isoOfSeconds(seconds: string): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

/**
 * Who reads a transaction: the words of a dispute (its reason, the ruling's note) are shown to its
 * two parties and the arbiter only; everyone else reads them as null.
 */
export interface TransactionViewer {
  /** The agent the caller acts as (by key or an owner's session). */
  agentId?: string;
  arbiter?: boolean;
}

/** Who asks for an owner's transactions: the agent it acts as, and its owner's live session's address. */
export interface OwnerViewer {
  agent?: OwnedAgent & { id: string };
  /** The wallet address of the caller's Sign-In with Ethereum session (any case). */
  sessionAddress?: string;
}

/** Whether `viewer` may read the dispute's words of `row`. */
function seesDispute(row: TransactionFacts, viewer: TransactionViewer): boolean {
  const { buyerAgentId, sellerAgentId } = row.transaction;
  return (
    viewer.arbiter === true || (viewer.agentId !== undefined && [buyerAgentId, sellerAgentId].includes(viewer.agentId))
  );
}

/** When a DELIVERED escrow can be released by anyone (the keeper does): delivery plus the dispute window. */
export function autoReleaseAt(escrow: { status: string; deliveredAt: string; disputeWindow: number } | null) {
  if (escrow?.status !== "DELIVERED") return null;
  return new Date((Number(escrow.deliveredAt) + escrow.disputeWindow) * 1000).toISOString();
}

/** The one transaction shape every answer gives (API.md, "Full transaction shape"; schemas/transaction.ts). */
export interface TransactionView {
  id: string;
  listing_id: string | null;
  amount_wei: string;
  currency: string;
  description: string;
  state: TransactionState;
  deadline: string;
  created_at: string;
  buyer: { id: string; name: string };
  seller: { id: string; name: string } | null;
  escrow_id: string;
  escrow_id_bytes32: string;
  contract_address: string;
  chain_id: number;
  delivered_at: string | null;
  auto_release_at: string | null;
  deliverable_hash: string | null;
  dispute_window_hours: number;
  dispute: { raised_by: "buyer" | "seller"; reason: string | null; raised_at: string } | null;
  resolution: {
    seller_bps: number;
    seller_received_wei: string;
    buyer_refunded_wei: string;
    fee_wei: string;
    note: string | null;
  } | null;
  funding_tx_hash: string | null;
  release_tx_hash: string | null;
  tx_hash: string | null;
  fee_bps: number | null;
  fee_wei: string | null;
  seller_receives_wei: string | null;
}

/**
 * The platform fee and the seller's money of an escrow: what was paid once it is settled (nothing
 * to the seller of a refund), and while it is open what a release of the whole amount would pay,
 * at the fee the escrow was funded with (the contract's rule: amount × fee_bps / 10000, rounded
 * down). All null before the escrow is funded: its fee is fixed only then.
 */
export function sellerMoney(
  amountWei: string,
  escrow: Pick<NonNullable<TransactionFacts["escrow"]>, "status" | "feeBps" | "sellerPayout" | "feePaid"> | null,
): Pick<TransactionView, "fee_bps" | "fee_wei" | "seller_receives_wei"> {
  if (!escrow) return { fee_bps: null, fee_wei: null, seller_receives_wei: null };
  const settled = escrow.status === "RELEASED" || escrow.status === "REFUNDED" || escrow.status === "RESOLVED";
  if (settled) {
    return { fee_bps: escrow.feeBps, fee_wei: escrow.feePaid ?? "0", seller_receives_wei: escrow.sellerPayout ?? "0" };
  }
  const fee = (BigInt(amountWei) * BigInt(escrow.feeBps)) / 10_000n;
  return {
    fee_bps: escrow.feeBps,
    fee_wei: fee.toString(),
    seller_receives_wei: (BigInt(amountWei) - fee).toString(),
  };
}

/** The answer shape of one transaction row (see schemas/transaction.ts), as `viewer` may read it. */
export function toTransaction(
  row: TransactionFacts,
  location: EscrowLocation,
  viewer: TransactionViewer = {},
): TransactionView {
  const { transaction: t, escrow } = row;
  const state = stateOfRow(row);
  const disputedBy = escrow?.disputedBy;
  const words = seesDispute(row, viewer);
  return {
    id: t.id,
    listing_id: t.listingId,
    amount_wei: t.amountWei,
    currency: t.currency,
    description: t.description,
    state,
    deadline: escrow ? isoOfSeconds(escrow.deadline) : t.deadline.toISOString(),
    created_at: t.createdAt.toISOString(),
    buyer: { id: t.buyerAgentId, name: row.buyerName },
    seller: t.sellerAgentId && row.sellerName !== null ? { id: t.sellerAgentId, name: row.sellerName } : null,
    escrow_id: t.id,
    escrow_id_bytes32: escrowIdOfRow(t, row.buyerWallet),
    contract_address: location.contractAddress,
    chain_id: location.chainId,
    delivered_at: escrow && escrow.deliveredAt !== "0" ? isoOfSeconds(escrow.deliveredAt) : null,
    auto_release_at: autoReleaseAt(escrow),
    deliverable_hash: escrow?.deliverableHash ?? null,
    dispute_window_hours: (escrow?.disputeWindow ?? t.disputeWindowSeconds) / 3600,
    dispute:
      escrow && disputedBy
        ? {
            raised_by: disputedBy.toLowerCase() === escrow.seller.toLowerCase() ? "seller" : "buyer",
            reason: words ? reasonOnChain(row.disputeReason, escrow.disputeReasonHash) : null,
            raised_at: isoOfSeconds(escrow.disputedAt ?? "0"),
          }
        : null,
    resolution:
      escrow?.status === "RESOLVED"
        ? {
            seller_bps: escrow.resolutionSellerBps ?? 0,
            seller_received_wei: escrow.sellerPayout ?? "0",
            buyer_refunded_wei: escrow.buyerPayout ?? "0",
            fee_wei: escrow.feePaid ?? "0",
            note: words ? row.rulingNote : null,
          }
        : null,
    funding_tx_hash: escrow?.fundedTxHash ?? null,
    release_tx_hash: state === "RELEASED" ? (escrow?.settledTxHash ?? null) : null,
    tx_hash: escrow
      ? (escrow.settledTxHash ??
        escrow.disputedTxHash ??
        escrow.deliveredTxHash ??
        escrow.assignedTxHash ??
        escrow.fundedTxHash)
      : null,
    ...sellerMoney(t.amountWei, escrow),
  };
}

/** One transaction with its escrow; 404 for an unknown id (or one that cannot name a transaction). */
export async function findTransaction(db: Database, chainId: number, id: string): Promise<TransactionRow> {
  if (!isUuid(id)) throw notFound("Transaction");
  const [row] = await queryTransactions(db, chainId, { id, limit: 1 });
  if (!row) throw notFound("Transaction");
  return row;
}

/** One transaction for one of its parties: 404 unknown, 403 for anyone else. */
export async function findTransactionOfParty(
  db: Database,
  chainId: number,
  id: string,
  agentId: string,
): Promise<TransactionRow> {
  const row = await findTransaction(db, chainId, id);
  const { buyerAgentId, sellerAgentId } = row.transaction;
  if (agentId !== buyerAgentId && agentId !== sellerAgentId) throw forbidden("Only the parties see this");
  return row;
}

export interface ListTransactionsInput {
  /** Buyer or seller. */
  agentId?: string;
  /**
   * An owner's wallet address: with that owner's session, its agents' transactions; with the key of
   * an agent it owns, that agent's own; anyone else gets an empty page (`owner` below).
   */
  owner?: { address: string; viewer: OwnerViewer };
  state?: TransactionState;
  limit: number;
  /** The previous page's `next_cursor`. */
  cursor?: string;
}

export interface TransactionPage {
  transactions: TransactionView[];
  next_cursor: string | null;
}

/**
 * What `owner=` lists for this caller: the owner's own session sees every agent it owns; an agent
 * it owns sees its own transactions (never another agent's, even of the same owner); anyone else
 * nothing (undefined).
 */
function ownerScope(
  address: string,
  viewer: OwnerViewer,
): Pick<TransactionQuery, "agentId" | "ownerAddress"> | undefined {
  const owner = address.toLowerCase();
  if (viewer.sessionAddress?.toLowerCase() === owner) return { ownerAddress: owner };
  if (viewer.agent && ownsAgent(owner, viewer.agent)) return { agentId: viewer.agent.id };
  return undefined;
}

/** The public reads of transactions: a page of them, newest first, and one by id. */
export function transactionReads(deps: Pick<Deps, "db" | "chain">) {
  const { db, chain } = deps;
  const location: EscrowLocation = {
    chainId: chain.chainId,
    contractAddress: chain.deployment.contracts.AgentEscrow.address,
  };
  return {
    async list(input: ListTransactionsInput, viewer: TransactionViewer = {}): Promise<TransactionPage> {
      const { owner, ...query } = input;
      const scope = owner ? ownerScope(owner.address, owner.viewer) : {};
      // With agent_id too: the transactions both name (another agent's id than the caller's: none).
      if (!scope || (scope.agentId && query.agentId && scope.agentId !== query.agentId)) {
        return { transactions: [], next_cursor: null };
      }
      const rows = await queryTransactions(db, chain.chainId, { ...query, ...scope, limit: input.limit + 1 });
      const { page, nextCursor } = keysetPage(rows, input.limit, (row) => ({
        at: row.position,
        id: row.transaction.id,
      }));
      return { transactions: page.map((row) => toTransaction(row, location, viewer)), next_cursor: nextCursor };
    },

    async get(id: string, viewer: TransactionViewer = {}): Promise<TransactionView> {
      return toTransaction(await findTransaction(db, chain.chainId, id), location, viewer);
    },
  };
}
