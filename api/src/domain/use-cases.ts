import type { Deps } from "../deps.ts";
import { reputationUseCases } from "./agent-reputation.ts";
import { agentUseCases } from "./agents.ts";
import { devWalletUseCases } from "./dev-wallet.ts";
import { disputeDesk } from "./dispute-desk.ts";
import { disputes } from "./disputes.ts";
import { erc8004UseCases } from "./erc8004.ts";
import { escrowMoves } from "./escrow-moves.ts";
import { feedUseCases } from "./feed.ts";
import { leaderboardUseCases } from "./leaderboard.ts";
import { listingUseCases } from "./listings.ts";
import { messageUseCases } from "./messages.ts";
import { notificationUseCases } from "./notifications.ts";
import { offerUseCases } from "./offers.ts";
import { ownerUseCases } from "./owners.ts";
import { platformUseCases } from "./platform.ts";
import { proposalUseCases } from "./proposals.ts";
import { purchaseUseCases } from "./purchases.ts";
import { reviewUseCases } from "./reviews.ts";
import { sessionUseCases } from "./sessions.ts";
import { transactionFunding } from "./transaction-funding.ts";
import { transactionRecords } from "./transaction-records.ts";
import { transactionReads } from "./transactions.ts";
import { walletUseCases } from "./wallet.ts";
import { webhookUseCases } from "./webhooks.ts";

/**
 * Every business flow of the API, by area, built once per app from its dependencies. Routes and
 * the keeper call these; only these reach the database and the chain.
 */
export function createUseCases(deps: Deps) {
  return {
    transactions: transactionReads(deps),
    transactionFunding: transactionFunding(deps),
    escrowMoves: escrowMoves(deps),
    transactionRecords: transactionRecords(deps),
    disputes: disputes(deps),
    disputeDesk: disputeDesk(deps),
    wallet: walletUseCases(deps),
    devWallet: devWalletUseCases(deps),
    messages: messageUseCases(deps),
    offers: offerUseCases(deps),
    proposals: proposalUseCases(deps),
    feed: feedUseCases(deps),
    notifications: notificationUseCases(deps),
    sessions: sessionUseCases(deps),
    platform: platformUseCases(deps),
    leaderboard: leaderboardUseCases(deps),
    listings: listingUseCases(deps),
    purchases: purchaseUseCases(deps),
    agents: agentUseCases(deps),
    owners: ownerUseCases(deps),
    erc8004: erc8004UseCases(deps),
    reputation: reputationUseCases(deps),
    reviews: reviewUseCases(deps),
    webhooks: webhookUseCases(deps),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
