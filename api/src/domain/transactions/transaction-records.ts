import { and, asc, eq, sql } from "drizzle-orm";
import { getAddress, zeroAddress } from "viem";
import { acceptedTxHashes, deliverables, evidence, relayedTransactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { escrowSettings } from "../platform/platform.ts";
import { notFound } from "../shared/errors.ts";
import { mergeTimeline } from "./timeline-order.ts";
import type { TransactionState } from "./transaction-state.ts";
import { findTransactionOfParty, stateOfRow } from "./transactions.ts";

/*
 * A transaction's records for its parties: the timeline (on-chain events from the indexer, with
 * their tx hashes, and the off-chain ones) and the delivered content.
 */

/** Who made a timeline event, as people name them. */
export const TIMELINE_ACTOR_ROLES = ["buyer", "seller", "arbiter", "marketplace"] as const;
export type TimelineActorRole = (typeof TIMELINE_ACTOR_ROLES)[number];

export interface TimelineEvent {
  at: string;
  source: "chain" | "api";
  kind: string;
  actor: string | null;
  /** The actor as a party or a role of the escrow; null for an address the marketplace does not know. */
  actor_role: TimelineActorRole | null;
  /** The buyer's or the seller's agent name when it acted. */
  actor_name: string | null;
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

  /**
   * Every event of a transaction, on chain and off, in one order: the chain's events in chain order,
   * the marketplace's placed among them by when they happened (timeline-order.ts).
   */
  async function timeline({ transactionId: id, agentId }: PartyRequest): Promise<TimelineView> {
    const row = await findTransactionOfParty(db, chain.chainId, id, agentId);
    // Only the transaction's own escrow (escrow-match.ts) has a timeline: a foreign one under its reference has none here.
    const escrowId = row.escrow?.id;
    // With each event, when the marketplace sent its transaction or was handed it as proof (the wall
    // clock's moment, in whole milliseconds as its own events' times are: a move's row and the
    // relayer's are written in one database transaction, at the same moment).
    const { rows: onChain } = await db.execute<Record<string, string | number | null>>(sql`
      SELECT e.kind, e.actor, e.amount::text AS amount, e.buyer_amount::text AS buyer_amount, e.fee::text AS fee,
             e.seller, e.data_hash, e.seller_bps, e.tx_hash, e.block_number::text AS block_number,
             e.block_timestamp::text AS block_timestamp,
             (SELECT floor(extract(epoch FROM least(
                (SELECT min(r.created_at) FROM ${relayedTransactions} r WHERE r.tx_hash = e.tx_hash),
                (SELECT min(a.created_at) FROM ${acceptedTxHashes} a WHERE a.tx_hash = e.tx_hash)
              )) * 1000))::text AS known_ms
      FROM chain.escrow_event e
      WHERE e.chain_id = ${chain.chainId} AND e.escrow_id = ${escrowId ?? null}
      ORDER BY e.block_number, e.log_index`);
    const [delivered, submitted, settings] = await Promise.all([
      db.select().from(deliverables).where(eq(deliverables.transactionId, id)).orderBy(asc(deliverables.createdAt)),
      db.select().from(evidence).where(eq(evidence.transactionId, id)).orderBy(asc(evidence.createdAt)),
      escrowSettings(db, chain.chainId),
    ]);
    const { buyerAgentId, sellerAgentId } = row.transaction;
    const seller = row.escrow && row.escrow.seller !== zeroAddress ? row.escrow.seller : undefined;
    const named = (role: TimelineActorRole | null) => ({
      actor_role: role,
      actor_name: role === "buyer" ? row.buyerName : role === "seller" ? row.sellerName : null,
    });
    /** The role of the address that made an on-chain event. */
    const roleOfAddress = (kind: string, address: string | null): TimelineActorRole | null => {
      // Only the arbiter rules (its relayer sends the ruling); only the operator assigns a bounty's seller.
      if (kind === "RESOLVED") return "arbiter";
      if (kind === "SELLER_ASSIGNED") return "marketplace";
      const actor = address?.toLowerCase();
      if (!actor) return null;
      if (actor === row.buyerWallet.toLowerCase()) return "buyer";
      if (actor === seller?.toLowerCase()) return "seller";
      if (actor === settings?.arbiter.toLowerCase()) return "arbiter";
      if (actor === settings?.operator.toLowerCase()) return "marketplace";
      return null;
    };
    const roleOfAgent = (agent: string | null): TimelineActorRole | null =>
      agent === buyerAgentId ? "buyer" : agent !== null && agent === sellerAgentId ? "seller" : null;

    const chainEvents = onChain.map((event) => {
      const blockMs = Number(event.block_timestamp) * 1000;
      const kind = String(event.kind);
      const actor = event.actor === null ? null : getAddress(String(event.actor));
      return {
        blockMs,
        ...(event.known_ms !== null && { knownMs: Number(event.known_ms) }),
        event: {
          at: new Date(blockMs).toISOString(),
          source: "chain" as const,
          kind,
          actor,
          ...named(roleOfAddress(kind, actor)),
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
        } satisfies TimelineEvent,
      };
    });
    const apiEvent = (at: Date, kind: string, agent: string | null, details: TimelineEvent["details"]) => ({
      atMs: at.getTime(),
      event: {
        at: at.toISOString(),
        source: "api" as const,
        kind,
        actor: agent,
        ...named(roleOfAgent(agent)),
        tx_hash: null,
        block_number: null,
        details,
      } satisfies TimelineEvent,
    });
    const apiEvents = [
      apiEvent(row.transaction.createdAt, "CREATED", buyerAgentId, { amount_wei: row.transaction.amountWei }),
      ...delivered.map((item) =>
        apiEvent(item.createdAt, "DELIVERABLE_SUBMITTED", sellerAgentId, {
          deliverable_hash: item.hash,
          ...(item.url && { deliverable_url: item.url }),
        }),
      ),
      ...submitted.map((item) =>
        apiEvent(item.createdAt, "EVIDENCE", item.agentId, {
          evidence_id: item.id,
          content: item.content,
          ...(item.url && { url: item.url }),
        }),
      ),
    ];
    const events = mergeTimeline(chainEvents, apiEvents).map((placed) => placed.event);
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
