import { escrowIdToBytes32 } from "@agent-marketplace/contracts";
import { and, eq, sql } from "drizzle-orm";
import { zeroAddress } from "viem";
import { repeatEvery } from "../background/repeat.ts";
import { custodialAccount } from "../chain/custodial-wallet.ts";
import { agents, listings, relayedTransactions, transactions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { fundedBountiesAwaitingListing, listFundedBounty } from "../domain/bounties.ts";
import { EscrowRefusedError, IndexerBehindError } from "../domain/errors.ts";
import { termsOfEscrow } from "../domain/escrow-terms.ts";
import { transactionWrite } from "../domain/read-your-writes.ts";
import { createSettlement } from "../domain/settlement.ts";

/*
 * The keeper: what must happen when time passes, without anyone asking.
 * - Auto-release: a delivered bounty whose dispute window has closed is released to its seller.
 * - Expiry: an undelivered escrow past its deadline is refunded to its buyer; for a bounty, a
 *   lapsed claim re-opens it instead (the claimant is cleared), and an unclaimed bounty past its
 *   expiry is refunded and delisted.
 * - Reconciliation: relayed transactions a crash left without a receipt are recorded or re-sent
 *   (the relayer's and hosted wallets' own),
 *   and an external poster's bounty funded on chain but never confirmed is listed. (A transaction's
 *   state is read from its indexed escrow, so a PENDING one whose funding landed is FUNDED already.)
 * The relayer sends release and refund, which anyone may call once time allows; the gas is ours.
 */

export interface KeeperReport {
  resumed: number;
  /** Bounty listings whose funding was seen on chain without a confirm. */
  listed: string[];
  released: string[];
  refunded: string[];
  reopened: string[];
}

/** Escrows of our transactions that time has made actionable, at most `limit`. */
interface Due {
  id: string;
  listingId: string | null;
  sellerAgentId: string | null;
  status: string;
  buyer: string;
  seller: string;
  amount: string;
  deadline: string;
  disputeWindow: number;
  deliveredAt: string;
  feeBps: number;
  isBounty: boolean;
}

export function createKeeper(
  deps: Pick<
    Deps,
    "db" | "config" | "chain" | "escrow" | "relayer" | "indexed" | "hostedSender" | "logger" | "readCache"
  >,
) {
  const { db, config, chain, escrow, relayer, hostedSender, logger } = deps;
  const send = createSettlement(deps);

  /**
   * Hosted wallets' own transactions (ERC-8004 registrations and feedback) that a crash or a failed
   * broadcast left without a receipt: sent again or recorded, without waiting for the agent's next
   * request. Answers how many were open.
   */
  async function resumeHostedWallets(): Promise<number> {
    let resumed = 0;
    for (const address of await hostedSender.openWallets()) {
      const [agent] = await db
        .select()
        .from(agents)
        .where(sql`lower(${agents.walletAddress}) = ${address.toLowerCase()}`);
      if (!agent?.hosted || !agent.encryptedPrivateKey) continue;
      resumed += await hostedSender.resume(custodialAccount(agent, config.masterKey));
    }
    return resumed;
  }

  async function due(now: number, limit = 50): Promise<Due[]> {
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

  /** Sends `release` or `refund` for an escrow; false if it is in flight or the escrow refused. */
  async function settle(item: Due, action: "release" | "refund"): Promise<boolean> {
    const purpose = action === "release" ? "auto-release" : "expiry-refund";
    if (await inFlight(item.id, purpose)) return false;
    try {
      const { receipt } = await send(
        escrow.relayedTimeout(escrowIdToBytes32(item.id), termsOfEscrow(item), action, purpose),
        {
          transactionId: item.id,
          refused: (reason) => new EscrowRefusedError(reason),
          indexed: transactionWrite(action === "release" ? "Released" : "Refunded", item.id),
        },
      );
      return receipt.status === "success";
    } catch (error) {
      if (error instanceof EscrowRefusedError) {
        logger.warn({ transaction_id: item.id, action, err: error.message }, "keeper: the escrow refused");
        return false;
      }
      // Done on chain; the indexer shows it on its next block (the keeper answers nobody).
      if (error instanceof IndexerBehindError) return true;
      throw error;
    }
  }

  async function runOnce(): Promise<KeeperReport> {
    const report: KeeperReport = {
      resumed: (await relayer.resume()) + (await resumeHostedWallets()),
      listed: [],
      released: [],
      refunded: [],
      reopened: [],
    };
    for (const listingId of await fundedBountiesAwaitingListing(db, chain.chainId)) {
      if (await listFundedBounty(db, listingId)) report.listed.push(listingId);
    }
    if (report.listed.length > 0) deps.readCache?.invalidate();
    const now = await escrow.now();
    for (const item of await due(now)) {
      if (item.status === "DELIVERED") {
        if (await settle(item, "release")) report.released.push(item.id);
        continue;
      }
      if (item.isBounty && item.sellerAgentId) {
        // A lapsed claim: the claimant can no longer deliver; the bounty is open again (and is
        // refunded on a later run if it is past its own expiry).
        await db
          .update(transactions)
          .set({ sellerAgentId: null })
          .where(and(eq(transactions.id, item.id), eq(transactions.sellerAgentId, item.sellerAgentId)));
        report.reopened.push(item.id);
        continue;
      }
      if (await settle(item, "refund")) {
        report.refunded.push(item.id);
        if (item.isBounty && item.listingId) {
          await db
            .update(listings)
            .set({ isActive: false, updatedAt: new Date() })
            .where(eq(listings.id, item.listingId));
          deps.readCache?.invalidate();
        }
      }
    }
    if (
      report.resumed ||
      report.listed.length ||
      report.released.length ||
      report.refunded.length ||
      report.reopened.length
    ) {
      logger.info(report, "keeper");
    }
    return report;
  }

  return {
    runOnce,
    /** Runs every `intervalMs` (one run at a time) until the returned stop is called. */
    start(intervalMs: number): () => Promise<void> {
      return repeatEvery(intervalMs, runOnce, (error) => logger.error({ err: error }, "keeper run failed"));
    },
  };
}
