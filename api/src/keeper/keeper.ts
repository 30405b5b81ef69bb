import type { Logger } from "pino";
import { repeatEvery } from "../background/repeat.ts";
import { offerUseCases } from "../domain/offers/offers.ts";
import { type HealedApprovals, interruptedApprovals } from "../domain/owners/interrupted-approvals.ts";
import { creditPayouts } from "../domain/platform/credits.ts";
import { reconciliation } from "../domain/platform/reconciliation.ts";
import { escrowTimeouts } from "../domain/transactions/timeouts.ts";

/*
 * The keeper: what must happen when time passes, without anyone asking. Each run, in order:
 * - reconciliation: unfinished sends are resumed, and bounties funded without a confirm listed
 *   (domain/platform/reconciliation.ts);
 * - timeouts: every delivered escrow past its dispute window (a FIXED purchase or a bounty) is
 *   released to its seller, expired escrows refunded (an expired bounty delisted), and lapsed
 *   bounty claims re-opened (domain/transactions/timeouts.ts). A release a seller asked for, or one already
 *   under way, is not sent twice;
 * - offers: every live offer past its time is recorded EXPIRED and both parties told
 *   (domain/offers/offers.ts);
 * - credits: every payout the escrow credited because the token refused it (a paused token, a
 *   blacklisted payee) is paid out once the token accepts it, and skipped quietly until then
 *   (domain/platform/credits.ts);
 * - approvals: every owner's approval whose carrying out a crash interrupted is recorded as what
 *   happened (approved with its send, failed) or made pending again when nothing was sent
 *   (domain/owners/interrupted-approvals.ts).
 */

export interface KeeperReport {
  resumed: number;
  /** Bounty listings whose funding was seen on chain without a confirm. */
  listed: string[];
  /** Open bounties whose matching agents were told only now (their telling was lost). */
  announced: string[];
  released: string[];
  refunded: string[];
  reopened: string[];
  /** Offers recorded EXPIRED. */
  expiredOffers: number;
  /** Accounts paid their credited payouts (`withdrawCredit`). */
  creditsPaid: number;
  /** Approvals whose carrying out was interrupted, repaired. */
  approvals: HealedApprovals;
}

/** What the keeper's use cases are built from, and where it reports. */
export type KeeperDeps = Parameters<typeof reconciliation>[0] &
  Parameters<typeof escrowTimeouts>[0] &
  Parameters<typeof creditPayouts>[0] & {
    logger: Logger;
    /** Where bounties are taken, for the `bounty.matching` notifications of the bounties it lists. */
    paths?: Parameters<typeof reconciliation>[1];
  };

export function createKeeper(deps: KeeperDeps) {
  const { logger } = deps;
  const reconcile = reconciliation(deps, deps.paths);
  const timeouts = escrowTimeouts(deps);
  const offers = offerUseCases(deps);
  const credits = creditPayouts(deps);
  const approvals = interruptedApprovals(deps);

  async function runOnce(): Promise<KeeperReport> {
    const report: KeeperReport = {
      resumed: await reconcile.resumeSends(),
      listed: await reconcile.listFundedBounties(),
      announced: await reconcile.announceBounties(),
      released: [],
      refunded: [],
      reopened: [],
      expiredOffers: 0,
      creditsPaid: 0,
      approvals: { completed: [], reopened: [], failed: [] },
    };
    for (const item of await timeouts.dueEscrows()) {
      if (item.status === "DELIVERED") {
        const outcome = await timeouts.autoRelease(item);
        if (outcome.settled) report.released.push(item.id);
        else if (outcome.refused) refused(item.id, "release", outcome.refused);
        continue;
      }
      if (item.isBounty && item.sellerAgentId) {
        await timeouts.reopenLapsedClaim({ ...item, sellerAgentId: item.sellerAgentId });
        report.reopened.push(item.id);
        continue;
      }
      const outcome = await timeouts.expiryRefund(item);
      if (outcome.settled) report.refunded.push(item.id);
      else if (outcome.refused) refused(item.id, "refund", outcome.refused);
    }
    report.expiredOffers = await offers.expireDue();
    report.creditsPaid = (await credits.payOutCredits()).paid.length;
    report.approvals = await approvals.heal();
    if (
      report.resumed ||
      report.listed.length ||
      report.announced.length ||
      report.released.length ||
      report.refunded.length ||
      report.reopened.length ||
      report.expiredOffers ||
      report.creditsPaid ||
      Object.values(report.approvals).some((ids) => ids.length > 0)
    ) {
      logger.info(report, "keeper");
    }
    return report;
  }

  function refused(transactionId: string, action: "release" | "refund", reason: string): void {
    logger.warn({ transaction_id: transactionId, action, err: reason }, "keeper: the escrow refused");
  }

  return {
    runOnce,
    /** Runs every `intervalMs` (one run at a time) until the returned stop is called. */
    start(intervalMs: number): () => Promise<void> {
      return repeatEvery(intervalMs, runOnce, (error) => logger.error({ err: error }, "keeper run failed"));
    },
  };
}
