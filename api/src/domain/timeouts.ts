import { escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { and, eq, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import { listings, relayedTransactions, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { EscrowRefusedError, IndexerBehindError } from "./errors.ts";
import { type IndexedEscrowTerms, termsOfEscrow } from "./escrow-terms.ts";
import { transactionWrite } from "./read-your-writes.ts";
import { createSettlement } from "./settlement.ts";

/*
 * What time does to an escrow, for the keeper to act on:
 * - auto-release: a delivered bounty whose dispute window has closed is released to its seller;
 * - expiry: an undelivered escrow past its deadline is refunded to its buyer; for a bounty, a
 *   lapsed claim re-opens it instead (the claimant is cleared), and an unclaimed bounty past its
 *   expiry is refunded and delisted.
 * The relayer sends release and refund, which anyone may call once time allows; the gas is ours.
 */

/** An escrow of one of our transactions that time has made actionable. */
export interface DueEscrow extends IndexedEscrowTerms {
  id: string;
  listingId: string | null;
  sellerAgentId: string | null;
  status: string;
  isBounty: boolean;
}

/** What a timeout's release or refund came to: done, or why not (the refusal is the escrow's reason). */
export type TimeoutOutcome = { settled: true } | { settled: false; refused?: string };

export function escrowTimeouts(deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "indexed" | "readCache">) {
  const { db, chain, escrow } = deps;
  const send = createSettlement(deps);

  /** Escrows that time has made actionable on the chain's clock, oldest transaction first, at most `limit`. */
  async function dueEscrows(limit = 50): Promise<DueEscrow[]> {
    const now = await escrow.now();
    const { rows } = await db.execute<Record<string, unknown>>(sql`
      SELECT t.id, t.listing_id, t.seller_agent_id, e.status, e.buyer, e.seller, e.amount::text AS amount,
             e.deadline::text AS deadline, e.dispute_window, e.delivered_at::text AS delivered_at, e.fee_bps, e.is_bounty
      FROM app.transactions t
      JOIN app.agents b ON b.id = t.buyer_agent_id
      LEFT JOIN app.listings l ON l.id = t.listing_id
      JOIN chain.escrow e ON e.chain_id = ${chain.chainId} AND e.uuid = t.id::text
        AND e.buyer = lower(b.wallet_address) AND e.amount = t.amount_wei
      WHERE (e.status = 'DELIVERED' AND e.is_bounty AND e.delivered_at + e.dispute_window < ${now})
         OR (e.status = 'FUNDED' AND e.deadline < ${now}
             -- a re-opened bounty waits for its next claim until the bounty itself expires
             AND NOT (e.is_bounty AND e.seller <> ${zeroAddress} AND t.seller_agent_id IS NULL
                      AND (l.bounty_expires_at IS NULL OR l.bounty_expires_at > to_timestamp(${now}))))
      ORDER BY t.created_at
      LIMIT ${limit}`);
    return rows.map((row) => ({
      id: row.id as string,
      listingId: row.listing_id as string | null,
      sellerAgentId: row.seller_agent_id as string | null,
      status: row.status as string,
      buyer: row.buyer as string,
      seller: row.seller as string,
      amount: row.amount as string,
      deadline: row.deadline as string,
      disputeWindow: Number(row.dispute_window),
      deliveredAt: row.delivered_at as string,
      feeBps: Number(row.fee_bps),
      isBounty: Boolean(row.is_bounty),
    }));
  }

  /** Whether a relayed transaction for this move is still waiting for its receipt. */
  async function inFlight(transactionId: string, purpose: string): Promise<boolean> {
    const [row] = await db
      .select({ id: relayedTransactions.id })
      .from(relayedTransactions)
      .where(
        and(
          eq(relayedTransactions.transactionId, transactionId),
          eq(relayedTransactions.purpose, purpose),
          eq(relayedTransactions.status, "signed"),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  /** Sends `release` or `refund` for an escrow; not settled if one is in flight or the escrow refused. */
  async function settleTimeout(item: DueEscrow, action: "release" | "refund"): Promise<TimeoutOutcome> {
    const purpose = action === "release" ? "auto-release" : "expiry-refund";
    if (await inFlight(item.id, purpose)) return { settled: false };
    try {
      const { receipt } = await send(
        escrow.relayedTimeout(escrowIdToBytes32(item.id), termsOfEscrow(item), action, purpose),
        {
          transactionId: item.id,
          refused: (reason) => new EscrowRefusedError(reason),
          indexed: transactionWrite(action === "release" ? "Released" : "Refunded", item.id),
        },
      );
      return { settled: receipt.status === "success" };
    } catch (error) {
      if (error instanceof EscrowRefusedError) return { settled: false, refused: error.message };
      // Done on chain; the indexer shows it on its next block (the keeper answers nobody).
      if (error instanceof IndexerBehindError) return { settled: true };
      throw error;
    }
  }

  return {
    dueEscrows,

    /** A delivered bounty whose dispute window has closed: released to its seller. */
    autoRelease: (item: DueEscrow) => settleTimeout(item, "release"),

    /**
     * A bounty's lapsed claim: the claimant can no longer deliver; the bounty is open again (and
     * is refunded on a later run if it is past its own expiry).
     */
    async reopenLapsedClaim(item: DueEscrow & { sellerAgentId: string }): Promise<void> {
      await db
        .update(transactions)
        .set({ sellerAgentId: null })
        .where(and(eq(transactions.id, item.id), eq(transactions.sellerAgentId, item.sellerAgentId)));
    },

    /** An expired escrow: refunded to its buyer; an expired bounty is delisted with it. */
    async expiryRefund(item: DueEscrow): Promise<TimeoutOutcome> {
      const outcome = await settleTimeout(item, "refund");
      if (outcome.settled && item.isBounty && item.listingId) {
        await db
          .update(listings)
          .set({ isActive: false, updatedAt: new Date() })
          .where(eq(listings.id, item.listingId));
        deps.readCache?.invalidate();
      }
      return outcome;
    },
  };
}

export type EscrowTimeouts = ReturnType<typeof escrowTimeouts>;
