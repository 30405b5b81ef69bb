import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { type Hex, zeroAddress } from "viem";
import type { Database } from "../../db/client.ts";
import { listings, relayedTransactions, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { declineProposalsOfClosedBounty } from "../proposals/proposals.ts";
import { EscrowRefusedError, IndexerBehindError } from "../shared/errors.ts";
import { awaitIndexed, transactionWrite } from "../shared/read-your-writes.ts";
import { createSettlement } from "../shared/settlement.ts";
import { escrowColumnsOf, escrowMatchesSql, expectedTermsOf } from "./escrow-match.ts";
import { type IndexedEscrowTerms, termsOfEscrow } from "./escrow-terms.ts";

/*
 * What time does to an escrow, for the keeper to act on:
 * - auto-release: a delivered escrow (a FIXED purchase or a bounty) whose dispute window has closed
 *   is released to its seller, so a buyer who says nothing cannot hold the seller's pay;
 * - expiry: an undelivered escrow past its deadline is refunded to its buyer; for a bounty, a
 *   lapsed claim re-opens it instead (the claimant is cleared), and an unclaimed bounty past its
 *   expiry is refunded and delisted (its pending proposals declined).
 * The relayer sends release and refund, which anyone may call once time allows; the gas is ours.
 * The same send serves a seller who asks for its release after the window (escrow-moves.ts).
 */

/** An escrow of one of our transactions: its transaction's id, the escrow's id and its indexed terms. */
export interface TimedEscrow extends IndexedEscrowTerms {
  id: string;
  /** The escrow's bytes32 id on chain (chain.escrow.id). */
  escrowId: string;
}

/** An escrow of one of our transactions that time has made actionable. */
export interface DueEscrow extends TimedEscrow {
  listingId: string | null;
  sellerAgentId: string | null;
  status: string;
  isBounty: boolean;
}

/** What a timeout's release or refund came to: done, or why not (the refusal is the escrow's reason). */
export type TimeoutOutcome = { settled: true } | { settled: false; refused?: string };

/**
 * The relayer's sends that end an escrow (the timeouts', a hosted party's release or refund, the
 * arbiter's ruling): only one of them can succeed, so once one is sent no other is.
 */
const SETTLING_PURPOSES = ["auto-release", "seller-release", "expiry-refund", "release", "refund", "resolve"];

/** Another send that ends this escrow was signed first (under way, or mined): ours was not sent. */
class SettlementSent extends Error {
  readonly txHash: Hex;
  constructor(txHash: Hex) {
    super(`This escrow's settlement was sent already: ${txHash}`);
    this.txHash = txHash;
  }
}

/**
 * The hash of a send that ends the escrow of `transactionId`, other than `except`, under way or
 * mined (its escrow is then settled, though the indexer may not show it yet); one that reverted or
 * was dropped does not count.
 */
async function settlementSent(
  db: Pick<Database, "select">,
  transactionId: string,
  except?: Hex,
): Promise<Hex | undefined> {
  const [row] = await db
    .select({ txHash: relayedTransactions.txHash })
    .from(relayedTransactions)
    .where(
      and(
        eq(relayedTransactions.transactionId, transactionId),
        inArray(relayedTransactions.purpose, SETTLING_PURPOSES),
        inArray(relayedTransactions.status, ["signed", "mined"]),
        except ? ne(relayedTransactions.txHash, except) : undefined,
      ),
    )
    .limit(1);
  return row?.txHash as Hex | undefined;
}

/**
 * Sends `release` or `refund` of an escrow that time lets anyone settle, from the platform's
 * relayer: for the keeper, and for a seller releasing after the dispute window. A keeper and a
 * seller at the same moment never both send: whether a settlement was sent is asked again in the
 * outbox's database transaction, under the relayer's lock (one send at a time per key), and if
 * one was, the signed row is rolled back unsent. `join` (a caller waiting for its answer) waits for
 * a settlement sent first instead of leaving it to finish, and after a refusal waits until the
 * indexer has the chain's head, so a re-read shows what settled the escrow first.
 */
export function timeoutSettlement(deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "indexed">) {
  const { db, chain, escrow, relayer, indexed } = deps;
  const send = createSettlement(deps);

  /** The outcome of the settlement sent first, once mined and indexed (confirm re-sends it if it was lost). */
  async function joined(id: string, txHash: Hex): Promise<TimeoutOutcome> {
    const receipt = await relayer.confirm(txHash);
    await awaitIndexed(indexed, receipt.blockNumber, transactionWrite("Settled", id));
    return receipt.status === "success" ? { settled: true } : { settled: false, refused: `${txHash} reverted` };
  }

  /** Waits until the indexer has the chain's head: what refused ours is then in the escrow's row. */
  async function caughtUp(id: string): Promise<void> {
    await awaitIndexed(indexed, await chain.publicClient.getBlockNumber(), transactionWrite("Settled", id));
  }

  return async function settleTimeout(
    item: TimedEscrow,
    action: "release" | "refund",
    purpose: string,
    options: { join?: boolean } = {},
  ): Promise<TimeoutOutcome> {
    const { join = false } = options;
    const sent = await settlementSent(db, item.id);
    if (sent) return join ? joined(item.id, sent) : { settled: false };
    try {
      const { receipt } = await send(
        escrow.relayedTimeout(item.escrowId as Hex, termsOfEscrow(item), action, purpose),
        {
          transactionId: item.id,
          record: async (tx, ours) => {
            const first = await settlementSent(tx, item.id, ours.txHash);
            if (first) throw new SettlementSent(first);
          },
          refused: (reason) => new EscrowRefusedError(reason),
          indexed: transactionWrite(action === "release" ? "Released" : "Refunded", item.id),
        },
      );
      if (receipt.status === "success") return { settled: true };
      // Mined but reverted: a send not ours (an external party's) settled it after our simulation.
      if (join) await caughtUp(item.id);
      return { settled: false, refused: `${receipt.transactionHash} reverted` };
    } catch (error) {
      if (error instanceof SettlementSent) return join ? joined(item.id, error.txHash) : { settled: false };
      if (error instanceof EscrowRefusedError) {
        if (join) await caughtUp(item.id);
        return { settled: false, refused: error.message };
      }
      // Done on chain; the indexer shows it on its next block (the keeper answers nobody).
      if (error instanceof IndexerBehindError && !join) return { settled: true };
      throw error;
    }
  };
}

export function escrowTimeouts(deps: Pick<Deps, "db" | "chain" | "escrow" | "relayer" | "indexed" | "readCache">) {
  const { db, chain, escrow } = deps;
  const settleTimeout = timeoutSettlement(deps);

  /** Escrows that time has made actionable on the chain's clock, oldest transaction first, at most `limit`. */
  async function dueEscrows(limit = 50): Promise<DueEscrow[]> {
    const now = await escrow.now();
    const { rows } = await db.execute<Record<string, unknown>>(sql`
      SELECT t.id, e.id AS escrow_id, t.listing_id, t.seller_agent_id, e.status, e.buyer, e.seller, e.amount::text AS amount,
             e.deadline::text AS deadline, e.dispute_window, e.delivered_at::text AS delivered_at, e.fee_bps, e.is_bounty
      FROM app.transactions t
      JOIN app.agents b ON b.id = t.buyer_agent_id
      LEFT JOIN app.agents s ON s.id = t.seller_agent_id
      LEFT JOIN app.listings l ON l.id = t.listing_id
      JOIN chain.escrow e ON e.chain_id = ${chain.chainId} AND e.uuid = t.id::text
        AND ${escrowMatchesSql(escrowColumnsOf("e"), expectedTermsOf("t", "b", "s"))}
      -- anyone may release once the block's time reaches delivered_at + dispute_window
      WHERE (e.status = 'DELIVERED' AND e.delivered_at + e.dispute_window <= ${now})
         OR (e.status = 'FUNDED' AND e.deadline < ${now}
             -- a re-opened bounty waits for its next claim until the bounty itself expires
             AND NOT (e.is_bounty AND e.seller <> ${zeroAddress} AND t.seller_agent_id IS NULL
                      AND (l.bounty_expires_at IS NULL OR l.bounty_expires_at > to_timestamp(${now}))))
      ORDER BY t.created_at
      LIMIT ${limit}`);
    return rows.map((row) => ({
      id: row.id as string,
      escrowId: row.escrow_id as string,
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

  return {
    dueEscrows,

    /** A delivered escrow (FIXED or bounty) whose dispute window has closed: released to its seller. */
    autoRelease: (item: DueEscrow) => settleTimeout(item, "release", "auto-release"),

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
      const outcome = await settleTimeout(item, "refund", "expiry-refund");
      if (outcome.settled && item.isBounty && item.listingId) {
        await db
          .update(listings)
          .set({ isActive: false, closedAt: new Date(), updatedAt: new Date() })
          .where(eq(listings.id, item.listingId));
        await declineProposalsOfClosedBounty(db, item.listingId);
        deps.readCache?.invalidate();
      }
      return outcome;
    },
  };
}

export type EscrowTimeouts = ReturnType<typeof escrowTimeouts>;
