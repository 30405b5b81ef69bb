import { escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { evidence } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { conflict, EscrowRefusedError, TransactionRevertedError, unauthorized } from "./errors.ts";
import { termsOfEscrow } from "./escrow-terms.ts";
import { transactionWrite } from "./read-your-writes.ts";
import { createSettlement } from "./settlement.ts";
import type { TransactionState } from "./transaction-state.ts";
import { findTransaction, findTransactionOfParty, queryTransactions, stateOfRow } from "./transactions.ts";

/*
 * A dispute after it is opened (the opening is a move: escrow-moves.ts): the parties' evidence
 * while it is open, and the arbiter's ruling, sent on chain as `resolve(sellerBps)` by the
 * arbiter's own relayer. Who may rule is checked before this (the arbiter's key: http guards).
 */

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

export interface ResolveInput {
  transactionId: string;
  /** The seller's share of the amount, in basis points; the rest goes back to the buyer. */
  sellerBps: number;
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

  /** The arbiter's ruling on a DISPUTED transaction; answered once indexed, with the payouts. */
  async function resolve(input: ResolveInput): Promise<ResolutionView> {
    const { transactionId: id, sellerBps } = input;
    const relayer = deps.arbiterRelayer;
    if (!relayer) throw unauthorized("Only the arbiter's key resolves disputes");
    const row = await findTransaction(db, chain.chainId, id);
    const state = stateOfRow(row);
    const e = row.escrow;
    if (state !== "DISPUTED" || !e) {
      throw conflict(`Only a DISPUTED transaction is resolved; this one is ${state}`, { state });
    }
    const sent = await settle(escrow.relayedRuling(escrowIdToBytes32(id), termsOfEscrow(e), sellerBps), {
      via: relayer,
      transactionId: id,
      refused: (reason) => new EscrowRefusedError(`The escrow refused the ruling: ${reason}`),
      reverted: (txHash) => new TransactionRevertedError(`The ruling ${txHash} reverted`),
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
      },
    };
  }

  return { addEvidence, resolve };
}
