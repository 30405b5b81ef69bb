import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { repeatEvery } from "../background/repeat.ts";
import type { Database } from "../db/client.ts";
import { feedEvents, readCursors } from "../db/schema.ts";
import { refreshAgentRecords } from "../domain/agents/agent-records.ts";
import { reasonOnChain } from "../domain/disputes/dispute-reason.ts";
import { escrowColumnsOf, escrowMatchesSql, expectedTermsOf } from "../domain/transactions/escrow-match.ts";
import { type NewNotification, type NotificationKind, notify } from "./notify.ts";

/*
 * Turns the indexed escrow events (chain.escrow_event, in chain order) into notifications for the
 * parties of our transactions, and the public ones into feed events. A cursor in app.read_cursors
 * remembers the last event read; it moves in the same database transaction as the rows it
 * produced, and every row carries a dedupe key naming its event, so each event notifies each party
 * exactly once, whichever API instance reads it (an advisory lock lets one read at a time). The
 * parties of each event get their records (and kept tiers, and the platform totals) counted again
 * in the same transaction (domain/agents/agent-records.ts).
 *
 * Who hears what:
 * - FUNDED: the buyer `payment.funded`; the seller of a FIXED listing `listing.purchased`.
 * - SELLER_ASSIGNED (a bounty claimed): the poster `listing.claimed`.
 * - DELIVERED: the buyer `transaction.delivered`, with the deliverable's hash and link.
 * - DISPUTED: the other party `transaction.disputed`, with the reason (when it is the one hashed on chain).
 * - RELEASED, REFUNDED: both parties `payment.released` / `payment.refunded` (the keeper may have
 *   sent them, so neither party necessarily knows). A release the buyer did not make came after
 *   the dispute window (the keeper's, or the seller's own): its `message` tells each party so.
 * - RESOLVED: both parties `transaction.resolved`, with the seller's share and the arbiter's note.
 */

/** An escrow event joined with our transaction, if the escrow is one of ours. */
interface EventRow {
  id: string;
  kind: string;
  escrow_id: string | null;
  actor: string;
  amount: string | null;
  seller_bps: number | null;
  /** DELIVERED: the deliverable's hash, and the link the seller gave with it (if the API has it). */
  data_hash: string | null;
  deliverable_url: string | null;
  /** The dispute's words the API keeps (app.disputes): the reason, and the ruling's note. */
  dispute_reason: string | null;
  ruling_note: string | null;
  tx_hash: string;
  block_number: string;
  /** The escrow's parties on chain (lowercase), whatever our transaction: their records may change. */
  escrow_buyer: string | null;
  escrow_seller: string | null;
  /**
   * The transaction the escrow's reference names, whether or not the escrow is its own: an event may
   * make a transaction's escrow match, or stop matching (a bounty delivered by another seller).
   */
  ref_transaction_id: string | null;
  transaction_id: string | null;
  listing_id: string | null;
  listing_title: string | null;
  listing_type: string | null;
  buyer_agent_id: string | null;
  buyer_name: string | null;
  buyer_wallet: string | null;
  seller_agent_id: string | null;
  seller_name: string | null;
}

type Party = "buyer" | "seller";

/** What an event tells each party: [recipient, kind]. */
function recipientsOf(event: EventRow): Array<[Party, NotificationKind]> {
  switch (event.kind) {
    case "FUNDED":
      return event.listing_type === "FIXED"
        ? [
            ["buyer", "payment.funded"],
            ["seller", "listing.purchased"],
          ]
        : [["buyer", "payment.funded"]];
    case "SELLER_ASSIGNED":
      return [["buyer", "listing.claimed"]];
    case "DELIVERED":
      return [["buyer", "transaction.delivered"]];
    case "DISPUTED":
      return event.actor === event.buyer_wallet
        ? [["seller", "transaction.disputed"]]
        : [["buyer", "transaction.disputed"]];
    case "RELEASED":
      return [
        ["buyer", "payment.released"],
        ["seller", "payment.released"],
      ];
    case "REFUNDED":
      return [
        ["buyer", "payment.refunded"],
        ["seller", "payment.refunded"],
      ];
    case "RESOLVED":
      return [
        ["buyer", "transaction.resolved"],
        ["seller", "transaction.resolved"],
      ];
    default:
      return [];
  }
}

/** The public events the feed shows. */
export const FEED_EVENT_KINDS = ["listing.purchased", "listing.claimed", "payment.released"] as const;

/** The feed event of an escrow event kind. */
const FEED_EVENT_OF: Readonly<Record<string, (typeof FEED_EVENT_KINDS)[number]>> = {
  FUNDED: "listing.purchased",
  SELLER_ASSIGNED: "listing.claimed",
  RELEASED: "payment.released",
};

/**
 * What a release says to each party: whether it came after the dispute window without the buyer
 * (the keeper's auto-release, or the seller's own), and a sentence for a person reading it.
 */
function releaseWords(event: EventRow, party: Party) {
  const afterWindow = event.actor !== event.buyer_wallet;
  const message =
    party === "buyer"
      ? afterWindow
        ? "Released automatically after the dispute window: the seller was paid."
        : "You released the payment: the seller was paid."
      : afterWindow
        ? "Paid: the payment was released to you after the dispute window."
        : "Paid: the buyer released the payment to you.";
  return { released_after_window: afterWindow, message };
}

function agentRef(id: string | null, name: string | null) {
  return id ? { id, name } : null;
}

function notificationsOf(event: EventRow): NewNotification[] {
  if (!event.transaction_id) return [];
  const parties = {
    buyer: agentRef(event.buyer_agent_id, event.buyer_name),
    seller: agentRef(event.seller_agent_id, event.seller_name),
  };
  return recipientsOf(event).flatMap(([party, kind]) => {
    const recipient = parties[party];
    if (!recipient) return [];
    return [
      {
        agentId: recipient.id,
        kind,
        dedupeKey: `escrow_event:${event.id}:${kind}`,
        payload: {
          transaction_id: event.transaction_id,
          listing_id: event.listing_id,
          listing_title: event.listing_title,
          escrow_id: event.escrow_id,
          counterparty: parties[party === "buyer" ? "seller" : "buyer"],
          amount_wei: event.amount,
          ...(event.seller_bps !== null && { seller_bps: event.seller_bps }),
          ...(event.kind === "DELIVERED" && {
            deliverable_hash: event.data_hash,
            deliverable_url: event.deliverable_url,
          }),
          ...(event.kind === "RELEASED" && releaseWords(event, party)),
          ...(event.kind === "DISPUTED" && { reason: reasonOnChain(event.dispute_reason, event.data_hash) }),
          ...(event.kind === "RESOLVED" && { note: event.ruling_note }),
          tx_hash: event.tx_hash,
          block_number: event.block_number,
        },
      },
    ];
  });
}

function feedEventOf(event: EventRow) {
  const kind = FEED_EVENT_OF[event.kind];
  // A FUNDED bounty is its poster's own money going in: the listing shows it already.
  if (!kind || !event.transaction_id || (event.kind === "FUNDED" && event.listing_type !== "FIXED")) return [];
  return [
    {
      kind,
      dedupeKey: `escrow_event:${event.id}`,
      payload: {
        transaction_id: event.transaction_id,
        listing: event.listing_id ? { id: event.listing_id, title: event.listing_title } : null,
        buyer: agentRef(event.buyer_agent_id, event.buyer_name),
        seller: agentRef(event.seller_agent_id, event.seller_name),
        amount_wei: event.amount,
        tx_hash: event.tx_hash,
      },
    },
  ];
}

/** Events read per database transaction. */
const BATCH = 500;

export interface EscrowEventNotifier {
  /** Reads the next events after the cursor (at most `batch`); answers how many it read. */
  tick(batch?: number): Promise<number>;
  /** Runs `tick` every `intervalMs` until the returned stop is called. */
  start(intervalMs: number): () => Promise<void>;
}

export function createEscrowEventNotifier(deps: { db: Database; chainId: number; logger: Logger }) {
  const { db, chainId, logger } = deps;
  const cursorName = `escrow_events:${chainId}`;

  async function tick(batch = BATCH): Promise<number> {
    return db.transaction(async (tx) => {
      const { rows: lock } = await tx.execute<{ ok: boolean }>(
        sql`SELECT pg_try_advisory_xact_lock(hashtext(${cursorName})) AS ok`,
      );
      if (!lock[0]?.ok) return 0; // another instance is reading
      const [cursor] = await tx.select().from(readCursors).where(eq(readCursors.name, cursorName));
      let after = cursor?.position ?? "";
      // A restarted local chain starts its event ids over: a cursor past the last event is reset,
      // and every record is counted again (the new chain's records start from nothing).
      if (after) {
        const { rows } = await tx.execute<{ last: string | null }>(
          sql`SELECT max(id) AS last FROM chain.escrow_event WHERE chain_id = ${chainId}`,
        );
        if ((rows[0]?.last ?? "") < after) {
          after = "";
          await refreshAgentRecords(tx, chainId);
        }
      }
      const { rows: events } = await tx.execute<EventRow & Record<string, unknown>>(sql`
        SELECT ev.id, ev.kind, ev.escrow_id, ev.actor, ev.amount::text AS amount, ev.seller_bps, ev.data_hash,
               d.url AS deliverable_url, dw.reason AS dispute_reason, dw.ruling_note, ev.tx_hash,
               ev.block_number::text AS block_number, e.buyer AS escrow_buyer, e.seller AS escrow_seller,
               t.id AS transaction_id, t.listing_id, l.title AS listing_title, l.listing_type,
               t.buyer_agent_id, b.name AS buyer_name, lower(b.wallet_address) AS buyer_wallet,
               t.seller_agent_id, s.name AS seller_name,
               rt.id AS ref_transaction_id
        FROM chain.escrow_event ev
        LEFT JOIN chain.escrow e ON e.chain_id = ev.chain_id AND e.id = ev.escrow_id
        LEFT JOIN app.transactions rt ON rt.id = e.uuid::uuid
        -- only an escrow whose every term is the transaction's is ours (anyone may fund any reference)
        LEFT JOIN (app.transactions t
          JOIN app.agents b ON b.id = t.buyer_agent_id
          LEFT JOIN app.agents s ON s.id = t.seller_agent_id)
          ON t.id = e.uuid::uuid AND ${escrowMatchesSql(escrowColumnsOf("e"), expectedTermsOf("t", "b", "s"))}
        LEFT JOIN app.listings l ON l.id = t.listing_id
        LEFT JOIN app.deliverables d ON ev.kind = 'DELIVERED' AND d.transaction_id = t.id AND d.hash = ev.data_hash
        LEFT JOIN app.disputes dw ON ev.kind IN ('DISPUTED', 'RESOLVED') AND dw.transaction_id = t.id
        WHERE ev.chain_id = ${chainId} AND ev.id > ${after}
        ORDER BY ev.id
        LIMIT ${batch}`);
      const last = events.at(-1);
      if (!last) return 0;
      // Every escrow event may change its transaction's escrow and its parties' records (a funding,
      // a dispute, a settlement, a bounty's escrow becoming another's): counted again in this
      // transaction, with the records of the escrow's wallets.
      const present = (value: string | null): value is string => value !== null;
      await refreshAgentRecords(tx, chainId, {
        transactionIds: events.map((event) => event.ref_transaction_id).filter(present),
        wallets: events.flatMap((event) => [event.escrow_buyer, event.escrow_seller]).filter(present),
      });
      const ours = events.filter((event) => event.buyer_wallet !== null);
      await notify(tx, ours.flatMap(notificationsOf));
      const publicEvents = ours.flatMap(feedEventOf);
      if (publicEvents.length > 0) {
        const inOrder = publicEvents.map((event, i) => ({
          ...event,
          createdAt: sql`clock_timestamp() + ${i} * interval '1 microsecond'`,
        }));
        await tx.insert(feedEvents).values(inOrder).onConflictDoNothing();
      }
      await tx
        .insert(readCursors)
        .values({ name: cursorName, position: last.id })
        .onConflictDoUpdate({ target: readCursors.name, set: { position: last.id, updatedAt: new Date() } });
      return events.length;
    });
  }

  function start(intervalMs: number): () => Promise<void> {
    return repeatEvery(
      intervalMs,
      async () => {
        // A full batch means more are waiting: read on before the next interval.
        while ((await tick(BATCH)) === BATCH);
      },
      (error) => logger.error({ err: error }, "escrow event notifier failed"),
    );
  }

  return { tick, start } satisfies EscrowEventNotifier;
}
