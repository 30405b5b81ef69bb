import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Hex } from "viem";
import type { Database, DbTransaction } from "../../db/client.ts";
import { disputes as disputeWords, evidence, relayedTransactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import {
  ConflictError,
  conflict,
  EscrowRefusedError,
  TransactionRevertedError,
  unauthorized,
} from "../shared/errors.ts";
import { transactionWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import { escrowColumnsOf, escrowMatchesSql, expectedTermsOf } from "../transactions/escrow-match.ts";
import { termsOfEscrow } from "../transactions/escrow-terms.ts";
import type { TransactionState } from "../transactions/transaction-state.ts";
import {
  findTransaction,
  findTransactionOfParty,
  queryTransactions,
  stateOfRow,
  type TransactionRow,
} from "../transactions/transactions.ts";
import { disputeReasonHash } from "./dispute-reason.ts";

/*
 * A dispute's words and its course after it is opened (the opening is a move: escrow-moves.ts):
 * the reason kept beside its on-chain hash, the parties' evidence while it is open, and the
 * arbiter's ruling, sent on chain as `resolve(sellerBps)` by the arbiter's own relayer with its
 * note kept in the same database transaction. One ruling per dispute is on its way at a time, so
 * the note kept is the one of the ruling the chain takes. Who may rule is checked before this (the
 * arbiter's key or session: http guards).
 */

export interface DisputeReason {
  transactionId: string;
  /** The party opening the dispute. */
  agentId: string;
  reason: string;
}

/**
 * Keeps the reason of a dispute move (makeMove's `keep`: a hosted party's runs with the record of
 * the send, an external party's when it is told what to send and again with its tx_hash). Several
 * attempts may be kept before one reaches the chain, so the latest wins while the indexed escrow
 * shows no dispute; once it shows one, only the reason whose hash the chain holds is written, and
 * a later attempt with other words never replaces it.
 */
export function keepDisputeReason(chainId: number, input: DisputeReason) {
  const hash = disputeReasonHash(input.reason);
  return async (tx: Pick<Database, "insert">): Promise<void> => {
    // The transaction's own escrow (escrow-match.ts), not one someone else funded under its reference.
    const disputedOtherwise = sql`EXISTS (
      SELECT 1 FROM app.transactions t
      JOIN app.agents b ON b.id = t.buyer_agent_id
      LEFT JOIN app.agents s ON s.id = t.seller_agent_id
      JOIN chain.escrow e ON e.chain_id = ${chainId} AND e.uuid = t.id::text
        AND ${escrowMatchesSql(escrowColumnsOf("e"), expectedTermsOf("t", "b", "s"))}
      WHERE t.id = ${input.transactionId}
        AND e.dispute_reason_hash IS NOT NULL AND lower(e.dispute_reason_hash) <> ${hash})`;
    await tx
      .insert(disputeWords)
      .values({ transactionId: input.transactionId, raisedByAgentId: input.agentId, reason: input.reason })
      .onConflictDoUpdate({
        target: disputeWords.transactionId,
        set: { raisedByAgentId: input.agentId, reason: input.reason, createdAt: sql`now()` },
        setWhere: sql`NOT ${disputedOtherwise}`,
      });
  };
}

/**
 * Refuses a ruling while another on the same dispute is sent and not yet known to have reverted
 * (or has landed). Runs in the outbox's database transaction of the ruling `txHash`, under the
 * arbiter relayer's lock, which every API instance takes to send a ruling: the check and the
 * record of the send are one step, so of rulings sent at once only the first is sent, and the note
 * kept with it is never overwritten by one that then reverts (the chain takes one ruling per
 * dispute). Rulings of an earlier instance of the chain (a restarted local node) do not count.
 */
async function refuseRulingOnItsWay(tx: DbTransaction, transactionId: string, purpose: string, txHash: Hex) {
  const outbox = relayedTransactions;
  const [other] = await tx
    .select({ txHash: outbox.txHash, status: outbox.status })
    .from(outbox)
    .where(
      and(
        eq(outbox.transactionId, transactionId),
        eq(outbox.purpose, purpose),
        inArray(outbox.status, ["signed", "mined"]),
        ne(outbox.txHash, txHash),
        sql`${outbox.chainInstance} = (SELECT r.chain_instance FROM ${outbox} r WHERE r.tx_hash = ${txHash})`,
      ),
    )
    .limit(1);
  if (!other) return;
  const landed = other.status === "mined";
  throw new ConflictError(
    landed
      ? `This dispute has been ruled (transaction ${other.txHash}); nothing was sent`
      : `Another ruling on this dispute is on its way (transaction ${other.txHash}); nothing was sent. Read the transaction again once it is settled`,
    { tx_hash: other.txHash },
    landed ? "already_ruled" : "ruling_in_progress",
  );
}

/**
 * Takes back the ruling's note and time when the ruling `txHash` reverted, unless another ruling
 * on the dispute has been sent since (it wrote its own) or has landed. The dispute's row is locked
 * first: a ruling recording its send now has committed, and its outbox row is seen.
 */
async function forgetRevertedRuling(db: Database, transactionId: string, purpose: string) {
  const outbox = relayedTransactions;
  await db.transaction(async (tx) => {
    await tx
      .select({ id: disputeWords.transactionId })
      .from(disputeWords)
      .where(eq(disputeWords.transactionId, transactionId))
      .for("update");
    const [other] = await tx
      .select({ txHash: outbox.txHash })
      .from(outbox)
      .where(
        and(
          eq(outbox.transactionId, transactionId),
          eq(outbox.purpose, purpose),
          inArray(outbox.status, ["signed", "mined"]),
        ),
      )
      .limit(1);
    if (other) return;
    await tx
      .update(disputeWords)
      .set({ rulingNote: null, ruledAt: null })
      .where(eq(disputeWords.transactionId, transactionId));
  });
}

/** The agent whose wallet opened the indexed dispute of `row` (the buyer unless it was the seller). */
function disputingAgent(row: TransactionRow): string {
  const { transaction, escrow } = row;
  const bySeller = escrow?.disputedBy && escrow.disputedBy.toLowerCase() === escrow.seller.toLowerCase();
  return (bySeller && transaction.sellerAgentId) || transaction.buyerAgentId;
}

export interface AddEvidenceInput {
  transactionId: string;
  agentId: string;
  content: string;
  url?: string;
}

export interface EvidenceView {
  evidence_id: string;
  transaction_id: string;
  created_at: string;
}

/** An item of evidence as its parties and the arbiter read it. */
export interface EvidenceItem {
  id: string;
  submitted_by: "buyer" | "seller";
  agent_id: string;
  content: string;
  url: string | null;
  created_at: string;
}

/** Every item of evidence of a transaction, of both sides, oldest first. */
export async function evidenceItems(
  db: Pick<Database, "select">,
  transaction: { id: string; buyerAgentId: string },
): Promise<EvidenceItem[]> {
  const submitted = await db
    .select()
    .from(evidence)
    .where(eq(evidence.transactionId, transaction.id))
    .orderBy(asc(evidence.createdAt), asc(evidence.id));
  return submitted.map((item) => ({
    id: item.id,
    submitted_by: item.agentId === transaction.buyerAgentId ? "buyer" : "seller",
    agent_id: item.agentId,
    content: item.content,
    url: item.url,
    created_at: item.createdAt.toISOString(),
  }));
}

export interface ResolveInput {
  transactionId: string;
  /** The seller's share of the amount, in basis points; the rest goes back to the buyer. */
  sellerBps: number;
  /** Why, for both parties: kept with the ruling. */
  note?: string;
}

export interface ResolutionView {
  transaction_id: string;
  state: TransactionState;
  tx_hash: string;
  resolution: {
    seller_bps: number;
    seller_received_wei: string;
    buyer_refunded_wei: string;
    fee_wei: string;
    note: string | null;
  };
}

export function disputes(deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "arbiterRelayer" | "indexed">) {
  const { db, chain, escrow } = deps;
  const settle = createSettlement(deps);

  /** Either party adds evidence while the transaction is DISPUTED (409 otherwise). */
  async function addEvidence(input: AddEvidenceInput): Promise<EvidenceView> {
    const { transactionId: id, agentId } = input;
    const row = await findTransactionOfParty(db, chain.chainId, id, agentId);
    const state = stateOfRow(row);
    if (state !== "DISPUTED") {
      throw conflict(`Evidence is taken while DISPUTED; this transaction is ${state}`, { state });
    }
    const [created] = await db
      .insert(evidence)
      .values({ transactionId: id, agentId, content: input.content, url: input.url })
      .returning();
    if (!created) throw new Error("insert returned no row");
    return { evidence_id: created.id, transaction_id: id, created_at: created.createdAt.toISOString() };
  }

  /** The evidence of a transaction, for its parties (403 for others, 404 for no such transaction). */
  async function evidenceOf(input: { transactionId: string; agentId: string }) {
    const row = await findTransactionOfParty(db, chain.chainId, input.transactionId, input.agentId);
    return {
      transaction_id: row.transaction.id,
      state: stateOfRow(row),
      evidence: await evidenceItems(db, row.transaction),
    };
  }

  /**
   * The arbiter's ruling on a DISPUTED transaction; answered once indexed, with the payouts. The
   * note commits with the record of the send, so it is there before the Resolved event is indexed
   * (and notified). A dispute opened on chain without the API gets its row here, reason empty.
   * While another ruling on it is on its way (or has landed) it is refused 409 and nothing is sent;
   * a ruling that reverts takes its note back.
   */
  async function resolve(input: ResolveInput): Promise<ResolutionView> {
    const { transactionId: id, sellerBps } = input;
    const note = input.note ?? null;
    const relayer = deps.arbiterRelayer;
    if (!relayer) throw unauthorized("Only the arbiter's key resolves disputes");
    const row = await findTransaction(db, chain.chainId, id);
    const state = stateOfRow(row);
    const e = row.escrow;
    if (state !== "DISPUTED" || !e) {
      throw conflict(`Only a DISPUTED transaction is resolved; this one is ${state}`, { state });
    }
    const call = escrow.relayedRuling(e.id as Hex, termsOfEscrow(e), sellerBps);
    const sent = await settle(call, {
      via: relayer,
      transactionId: id,
      record: async (tx, { txHash }) => {
        await refuseRulingOnItsWay(tx, id, call.purpose, txHash);
        const ruling = { rulingNote: note, ruledAt: sql`now()` };
        await tx
          .insert(disputeWords)
          .values({ transactionId: id, raisedByAgentId: disputingAgent(row), reason: "", ...ruling })
          .onConflictDoUpdate({ target: disputeWords.transactionId, set: ruling });
      },
      refused: (reason) => new EscrowRefusedError(`The escrow refused the ruling: ${reason}`),
      reverted: async (txHash) => {
        await forgetRevertedRuling(db, id, call.purpose);
        return new TransactionRevertedError(`The ruling ${txHash} reverted`);
      },
      indexed: transactionWrite("Resolved", id),
    });
    const [after] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
    const settled = after?.escrow;
    return {
      transaction_id: id,
      state: after ? stateOfRow(after) : state,
      tx_hash: sent.txHash,
      resolution: {
        seller_bps: sellerBps,
        seller_received_wei: settled?.sellerPayout ?? "0",
        buyer_refunded_wei: settled?.buyerPayout ?? "0",
        fee_wei: settled?.feePaid ?? "0",
        note,
      },
    };
  }

  return { addEvidence, evidenceOf, resolve };
}
