import { and, asc, eq, sql } from "drizzle-orm";
import { getAddress } from "viem";
import { deliverables, evidence } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { notFound } from "../shared/errors.ts";
import type { TransactionState } from "./transaction-state.ts";
import { findTransactionOfParty, stateOfRow } from "./transactions.ts";

/*
 * A transaction's records for its parties: the timeline (on-chain events from the indexer, with
 * their tx hashes, and the off-chain ones) and the delivered content.
 */

export interface TimelineEvent {
  at: string;
  source: "chain" | "api";
  kind: string;
  actor: string | null;
  tx_hash: string | null;
  block_number: string | null;
  details: Record<string, string | number>;
}

export interface TimelineView {
  transaction_id: string;
  state: TransactionState;
  events: TimelineEvent[];
}

export interface DeliverableView {
  transaction_id: string;
  content: string;
  deliverable_url: string | null;
  deliverable_hash: string;
  delivered_at: string;
}

/** What a party asks of a transaction it is in (404 unknown, 403 for anyone else). */
export interface PartyRequest {
  transactionId: string;
  agentId: string;
}

export function transactionRecords(deps: Pick<Deps, "db" | "chain">) {
  const { db, chain } = deps;

  /** Every event of a transaction, on chain and off, in order. */
  async function timeline({ transactionId: id, agentId }: PartyRequest): Promise<TimelineView> {
    const row = await findTransactionOfParty(db, chain.chainId, id, agentId);
    // Only the transaction's own escrow (escrow-match.ts) has a timeline: a foreign one under its reference has none here.
    const escrowId = row.escrow?.id;
    const { rows: onChain } = await db.execute<Record<string, string | number | null>>(sql`
      SELECT kind, actor, amount::text AS amount, buyer_amount::text AS buyer_amount, fee::text AS fee,
             seller, data_hash, seller_bps, tx_hash, block_number::text AS block_number,
             block_timestamp::text AS block_timestamp
      FROM chain.escrow_event
      WHERE chain_id = ${chain.chainId} AND escrow_id = ${escrowId ?? null}
      ORDER BY block_number, log_index`);
    const [delivered, submitted] = await Promise.all([
      db.select().from(deliverables).where(eq(deliverables.transactionId, id)).orderBy(asc(deliverables.createdAt)),
      db.select().from(evidence).where(eq(evidence.transactionId, id)).orderBy(asc(evidence.createdAt)),
    ]);
    const events: TimelineEvent[] = [
      {
        at: row.transaction.createdAt.toISOString(),
        source: "api" as const,
        kind: "CREATED",
        actor: row.transaction.buyerAgentId,
        tx_hash: null,
        block_number: null,
        details: { amount_wei: row.transaction.amountWei },
      },
      ...onChain.map((event) => ({
        at: new Date(Number(event.block_timestamp) * 1000).toISOString(),
        source: "chain" as const,
        kind: String(event.kind),
        actor: event.actor === null ? null : getAddress(String(event.actor)),
        tx_hash: event.tx_hash === null ? null : String(event.tx_hash),
        block_number: event.block_number === null ? null : String(event.block_number),
        details: Object.fromEntries(
          Object.entries({
            amount_wei: event.amount,
            buyer_amount_wei: event.buyer_amount,
            fee_wei: event.fee,
            seller: event.seller,
            data_hash: event.data_hash,
            seller_bps: event.seller_bps,
          }).filter((entry): entry is [string, string | number] => entry[1] !== null),
        ),
      })),
      ...delivered.map((item) => ({
        at: item.createdAt.toISOString(),
        source: "api" as const,
        kind: "DELIVERABLE_SUBMITTED",
        actor: row.transaction.sellerAgentId,
        tx_hash: null,
        block_number: null,
        details: { deliverable_hash: item.hash, ...(item.url && { deliverable_url: item.url }) },
      })),
      ...submitted.map((item) => ({
        at: item.createdAt.toISOString(),
        source: "api" as const,
        kind: "EVIDENCE",
        actor: item.agentId,
        tx_hash: null,
        block_number: null,
        details: { evidence_id: item.id, content: item.content, ...(item.url && { url: item.url }) },
      })),
    ].sort((a, b) => a.at.localeCompare(b.at));
    return { transaction_id: id, state: stateOfRow(row), events };
  }

  /** The delivered content and link, which hash to the escrow's deliverable hash; 404 before delivery. */
  async function deliverable({ transactionId: id, agentId }: PartyRequest): Promise<DeliverableView> {
    const row = await findTransactionOfParty(db, chain.chainId, id, agentId);
    const hash = row.escrow?.deliverableHash;
    if (!hash || row.escrow?.deliveredAt === "0") throw notFound("Deliverable");
    const [item] = await db
      .select()
      .from(deliverables)
      .where(and(eq(deliverables.transactionId, id), eq(deliverables.hash, hash)));
    if (!item) throw notFound("Deliverable (delivered on chain; its content was not submitted to the API)");
    return {
      transaction_id: id,
      content: item.content,
      deliverable_url: item.url,
      deliverable_hash: hash,
      delivered_at: new Date(Number(row.escrow?.deliveredAt) * 1000).toISOString(),
    };
  }

  return { timeline, deliverable };
}
