import type { Deps } from "../deps.ts";
import { reputationUseCases } from "./agents/agent-reputation.ts";
import { agentUseCases } from "./agents/agents.ts";
import { sessionUseCases } from "./auth/sessions.ts";
import { devWalletUseCases } from "./dev/dev-wallet.ts";
import { disputeDesk } from "./disputes/dispute-desk.ts";
import { disputes } from "./disputes/disputes.ts";
import { erc8004UseCases } from "./erc8004/erc8004.ts";
import { listingUseCases } from "./listings/listings.ts";
import { purchaseUseCases } from "./listings/purchases.ts";
import { feedUseCases } from "./messages/feed.ts";
import { messageUseCases } from "./messages/messages.ts";
import { notificationUseCases } from "./notifications/notifications.ts";
import { webhookUseCases } from "./notifications/webhooks.ts";
import { offerUseCases } from "./offers/offers.ts";
import { ownerUseCases } from "./owners/owners.ts";
import { spendingApprovalUseCases } from "./owners/spending-approvals.ts";
import { spendingLimitUseCases } from "./owners/spending-limits.ts";
import { leaderboardUseCases } from "./platform/leaderboard.ts";
import { operationsUseCases } from "./platform/operations.ts";
import { platformUseCases } from "./platform/platform.ts";
import { proposalUseCases } from "./proposals/proposals.ts";
import { reviewUseCases } from "./reviews/reviews.ts";
import type { ApiPaths } from "./shared/api-paths.ts";
import { escrowMoves } from "./transactions/escrow-moves.ts";
import { transactionFunding } from "./transactions/transaction-funding.ts";
import { transactionRecords } from "./transactions/transaction-records.ts";
import { transactionReads } from "./transactions/transactions.ts";
import { walletUseCases } from "./wallet/wallet.ts";
import { x402Signing } from "./wallet/x402-signing.ts";
import { x402Purchases } from "./x402/x402-purchases.ts";

/**
 * Every business flow of the API, by area, built once per app from its dependencies and the
 * paths the routes serve (`paths`: the domain knows no URL). Routes and the keeper call these;
 * only these reach the database and the chain.
 */
export function createUseCases(deps: Deps, paths: ApiPaths) {
  // The money moves an owner's approval carries out are the agents' own.
  const moves = {
    transactionFunding: transactionFunding(deps, paths),
    wallet: walletUseCases(deps),
    listings: listingUseCases(deps, paths),
    purchases: purchaseUseCases(deps, paths),
    /** x402 payments a hosted agent makes as a buyer (the service signs them under its caps). */
    x402Signing: x402Signing(deps),
  };
  return {
    ...moves,
    transactions: transactionReads(deps),
    escrowMoves: escrowMoves(deps, paths),
    transactionRecords: transactionRecords(deps),
    disputes: disputes(deps),
    disputeDesk: disputeDesk(deps),
    devWallet: devWalletUseCases(deps),
    messages: messageUseCases(deps),
    offers: offerUseCases(deps),
    proposals: proposalUseCases(deps, paths),
    feed: feedUseCases(deps),
    notifications: notificationUseCases(deps),
    sessions: sessionUseCases(deps),
    platform: platformUseCases(deps),
    /** What an operator watches (GET /metrics): escrows, the relayer, webhooks, the indexer. */
    operations: operationsUseCases(deps),
    leaderboard: leaderboardUseCases(deps),
    /** x402 payments of FIXED listings, settled into escrows. */
    x402: x402Purchases(deps),
    agents: agentUseCases(deps),
    owners: ownerUseCases(deps, paths),
    /** Hosted agents' spending caps (domain/wallet/spending-caps.ts judges every move by them). */
    spendingLimits: spendingLimitUseCases(deps),
    spendingApprovals: spendingApprovalUseCases(deps, moves),
    erc8004: erc8004UseCases(deps, paths),
    reputation: reputationUseCases(deps),
    reviews: reviewUseCases(deps, paths),
    webhooks: webhookUseCases(deps, paths),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
