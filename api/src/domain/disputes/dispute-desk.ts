import { and, asc, eq, gte, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { chainEscrow } from "../../db/chain-views.ts";
import { agents, deliverables, disputes, evidence, messages, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import type { PublicAgentView } from "../agents/agent-profile.ts";
import { recordsOf } from "../agents/agent-records.ts";
import { type ReputationFigures, reputationUseCases } from "../agents/agent-reputation.ts";
import { agentUseCases } from "../agents/agents.ts";
import { decodeCursor, encodeCursor } from "../shared/cursor.ts";
import { badRequest, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import { formatUsdc } from "../shared/money.ts";
import type { ReputationTier } from "../shared/reputation.ts";
import { deliverableHash } from "../transactions/deliverables.ts";
import { escrowMatchesSql, isBountyTransactionSql } from "../transactions/escrow-match.ts";
import { type TimelineEvent, transactionRecords } from "../transactions/transaction-records.ts";
import {
  type EscrowLocation,
  queryTransactions,
  type TransactionRow,
  type TransactionView,
  toTransaction,
} from "../transactions/transactions.ts";
import { reasonOnChain } from "./dispute-reason.ts";
import { evidenceItems } from "./disputes.ts";

/*
 * The arbiter's desk: the queue of disputes and the whole case of one. What is disputed is what
 * the indexer shows on chain (an escrow DISPUTED, or RESOLVED after a dispute), not our rows; the
 * words (reason, note) come from app.disputes, the reason only when it hashes to the on-chain
 * reasonHash. Who may read it is checked before this (the arbiter's key or session: http guards).
 */

export const DISPUTE_STATUSES = ["open", "resolved"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

type Side = "buyer" | "seller";

/** A party as the queue names it. */
interface QueueParty {
  id: string;
  name: string;
  reputation_tier: ReputationTier;
}

/** One dispute of the queue. */
export interface QueuedDisputeView {
  transaction_id: string;
  amount_wei: string;
  amount_usdc: string;
  buyer: QueueParty;
  seller: QueueParty | null;
  raised_by: Side;
  reason: string | null;
  raised_at: string;
  evidence_count: number;
  ruled_at: string | null;
  seller_bps: number | null;
  note: string | null;
}

export interface DisputeQueueView {
  disputes: QueuedDisputeView[];
  next_cursor: string | null;
}

/** A party of a case: its public profile and its reputation figures. */
type CaseParty = PublicAgentView & { reputation: ReputationFigures };

/** The whole case of one dispute, as the arbiter reads it. */
export interface DisputeCaseView {
  transaction: TransactionView;
  buyer: CaseParty;
  seller: CaseParty | null;
  raised_by: Side;
  reason: string | null;
  raised_at: string;
  fee_bps: number;
  evidence: {
    id: string;
    submitted_by: Side;
    agent_id: string;
    content: string;
    url: string | null;
    created_at: string;
  }[];
  deliverable: { content: string; url: string | null; hash: string; matches_chain: boolean } | null;
  messages: { id: string; sent_by: Side; agent_id: string; content: string; created_at: string }[];
  timeline: TimelineEvent[];
}

export interface DisputeQueueInput {
  /** open: DISPUTED on chain; resolved: ruled by the arbiter. */
  status: DisputeStatus;
  limit: number;
  /** The previous page's `next_cursor`. */
  cursor?: string;
}

/** The direct messages a case shows at most (the oldest since the transaction was created). */
export const CASE_MESSAGES = 500;

const buyerAgent = alias(agents, "buyer_agent");
const sellerAgent = alias(agents, "seller_agent");

/** The escrow status of a dispute's state: resolution is the only way out of a dispute that keeps its record. */
const ESCROW_STATUS: Record<DisputeStatus, string> = { open: "DISPUTED", resolved: "RESOLVED" };

/** Who opened an indexed dispute: the seller's wallet, or else the buyer. */
function raisedBy(escrow: { disputedBy: string | null; seller: string }): Side {
  return escrow.disputedBy?.toLowerCase() === escrow.seller.toLowerCase() ? "seller" : "buyer";
}

function isoOfSeconds(seconds: string | null): string {
  return new Date(Number(seconds ?? "0") * 1000).toISOString();
}

/** Disputes after the cursor's (raised_at, id), oldest first; 400 for a cursor we did not make. */
function afterCursor(cursor: string | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const position = decodeCursor(cursor);
  if (!/^\d{1,20}$/.test(position.at ?? "") || !isUuid(position.id)) throw badRequest("Invalid cursor");
  return sql`(${chainEscrow.disputedAt}, ${transactions.id}) > (${position.at}::numeric, ${position.id}::uuid)`;
}

export function disputeDesk(deps: Deps) {
  const { db, chain } = deps;
  const location: EscrowLocation = {
    chainId: chain.chainId,
    contractAddress: chain.deployment.contracts.AgentEscrow.address,
  };
  const profiles = agentUseCases(deps);
  const reputation = reputationUseCases(deps);
  const records = transactionRecords(deps);

  /** The queue, oldest dispute first (by when it was raised on chain, then transaction id). */
  async function queue(input: DisputeQueueInput): Promise<DisputeQueueView> {
    const evidenceCount = sql<number>`(
      SELECT count(*)::int FROM ${evidence} WHERE ${evidence.transactionId} = ${transactions.id})`;
    const rows = await db
      .select({
        transactionId: transactions.id,
        amountWei: transactions.amountWei,
        buyer: { id: buyerAgent.id, name: buyerAgent.name },
        sellerId: sellerAgent.id,
        sellerName: sellerAgent.name,
        escrowSeller: chainEscrow.seller,
        disputedBy: chainEscrow.disputedBy,
        reasonHash: chainEscrow.disputeReasonHash,
        disputedAt: chainEscrow.disputedAt,
        sellerBps: chainEscrow.resolutionSellerBps,
        settledAt: chainEscrow.settledAt,
        reason: disputes.reason,
        rulingNote: disputes.rulingNote,
        ruledAt: disputes.ruledAt,
        evidenceCount,
      })
      .from(chainEscrow)
      .innerJoin(transactions, eq(transactions.id, sql`${chainEscrow.uuid}::uuid`))
      .innerJoin(buyerAgent, eq(buyerAgent.id, transactions.buyerAgentId))
      .leftJoin(sellerAgent, eq(sellerAgent.id, transactions.sellerAgentId))
      .leftJoin(disputes, eq(disputes.transactionId, transactions.id))
      .where(
        and(
          eq(chainEscrow.chainId, chain.chainId),
          eq(chainEscrow.status, ESCROW_STATUS[input.status]),
          sql`${chainEscrow.disputedBy} IS NOT NULL`,
          // Anyone may fund an escrow under any id: only one whose every term is the transaction's counts.
          escrowMatchesSql(chainEscrow, {
            transactionId: transactions.id,
            amountWei: transactions.amountWei,
            deadline: transactions.deadline,
            disputeWindowSeconds: transactions.disputeWindowSeconds,
            buyerWallet: buyerAgent.walletAddress,
            sellerWallet: sellerAgent.walletAddress,
            isBounty: isBountyTransactionSql(transactions.listingId),
          }),
          afterCursor(input.cursor),
        ),
      )
      .orderBy(asc(chainEscrow.disputedAt), asc(transactions.id))
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    const next = rows.length > input.limit && last ? { at: last.disputedAt ?? "0", id: last.transactionId } : null;
    const records = await recordsOf(
      db,
      chain.chainId,
      page.flatMap((row) => [row.buyer.id, ...(row.sellerId ? [row.sellerId] : [])]),
    );
    const tierOf = (agentId: string) => records.get(agentId)?.tier ?? "NEWCOMER";
    const resolved = input.status === "resolved";
    return {
      disputes: page.map(
        (row): QueuedDisputeView => ({
          transaction_id: row.transactionId,
          amount_wei: row.amountWei,
          amount_usdc: formatUsdc(row.amountWei),
          buyer: { id: row.buyer.id, name: row.buyer.name, reputation_tier: tierOf(row.buyer.id) },
          seller:
            row.sellerId && row.sellerName !== null
              ? { id: row.sellerId, name: row.sellerName, reputation_tier: tierOf(row.sellerId) }
              : null,
          raised_by: raisedBy({ disputedBy: row.disputedBy, seller: row.escrowSeller }),
          reason: reasonOnChain(row.reason, row.reasonHash),
          raised_at: isoOfSeconds(row.disputedAt),
          evidence_count: row.evidenceCount,
          // A ruling sent without the API has no row: the block of its Resolved event says when.
          ruled_at: resolved ? (row.ruledAt?.toISOString() ?? isoOfSeconds(row.settledAt)) : null,
          seller_bps: resolved ? (row.sellerBps ?? 0) : null,
          note: resolved ? row.rulingNote : null,
        }),
      ),
      next_cursor: next && encodeCursor(next),
    };
  }

  /** A party's public profile with its reputation figures. */
  async function party(agentId: string) {
    const [profile, figures] = await Promise.all([profiles.publicProfile(agentId), reputation.reputation(agentId)]);
    return { ...profile, reputation: figures.figures };
  }

  /** The delivered content the chain committed to (else the latest the seller sent), with its check. */
  async function deliverableOf(row: TransactionRow): Promise<DisputeCaseView["deliverable"]> {
    const sent = await db
      .select()
      .from(deliverables)
      .where(eq(deliverables.transactionId, row.transaction.id))
      .orderBy(asc(deliverables.createdAt));
    const onChain = row.escrow?.deliverableHash?.toLowerCase() ?? null;
    const item = sent.find((candidate) => candidate.hash.toLowerCase() === onChain) ?? sent.at(-1);
    if (!item) return null;
    // Recomputed from the content, not read from our column: the check is of what the arbiter reads.
    const hash = deliverableHash(item.content, item.url);
    return { content: item.content, url: item.url, hash, matches_chain: hash === onChain };
  }

  /** The direct messages between the two parties since the transaction was created, oldest first. */
  async function messagesBetween(row: TransactionRow, sellerId: string | null) {
    const { buyerAgentId: buyerId, createdAt } = row.transaction;
    if (!sellerId) return [];
    const found = await db
      .select()
      .from(messages)
      .where(
        and(
          or(
            and(eq(messages.senderAgentId, buyerId), eq(messages.recipientAgentId, sellerId)),
            and(eq(messages.senderAgentId, sellerId), eq(messages.recipientAgentId, buyerId)),
          ),
          gte(messages.createdAt, createdAt),
        ),
      )
      .orderBy(asc(messages.createdAt), asc(messages.id))
      .limit(CASE_MESSAGES);
    return found.map((message) => ({
      id: message.id,
      sent_by: (message.senderAgentId === buyerId ? "buyer" : "seller") as Side,
      agent_id: message.senderAgentId,
      content: message.content,
      created_at: message.createdAt.toISOString(),
    }));
  }

  /** Everything to decide one dispute; 404 for a transaction that was never disputed on chain. */
  async function disputeCase(transactionId: string): Promise<DisputeCaseView> {
    const [row] = isUuid(transactionId)
      ? await queryTransactions(db, chain.chainId, { id: transactionId, limit: 1 })
      : [];
    const escrow = row?.escrow;
    if (!row || !escrow?.disputedBy || !["DISPUTED", "RESOLVED"].includes(escrow.status)) throw notFound("Dispute");
    const { buyerAgentId, sellerAgentId } = row.transaction;
    const [buyer, seller, submitted, deliverable, between, timeline] = await Promise.all([
      party(buyerAgentId),
      sellerAgentId ? party(sellerAgentId) : null,
      evidenceItems(db, row.transaction),
      deliverableOf(row),
      messagesBetween(row, sellerAgentId),
      // The arbiter reads the timeline its parties read.
      records.timeline({ transactionId, agentId: buyerAgentId }),
    ]);
    return {
      transaction: toTransaction(row, location, { arbiter: true }),
      buyer,
      seller,
      raised_by: raisedBy(escrow),
      reason: reasonOnChain(row.disputeReason, escrow.disputeReasonHash),
      raised_at: isoOfSeconds(escrow.disputedAt),
      fee_bps: escrow.feeBps,
      evidence: submitted,
      deliverable,
      messages: between,
      timeline: timeline.events,
    };
  }

  return { queue, disputeCase };
}

export type DisputeDesk = ReturnType<typeof disputeDesk>;
