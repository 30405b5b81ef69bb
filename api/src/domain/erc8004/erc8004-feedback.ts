import { and, eq, isNull } from "drizzle-orm";
import { getAddress, type Hex, keccak256, type LocalAccount, type TransactionReceipt, toBytes } from "viem";
import { custodialAccount } from "../../chain/custodial-wallet.ts";
import type { HostedSubmission } from "../../chain/hosted-sender.ts";
import { type agents, reviews } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { conflict } from "../shared/errors.ts";
import { createSettlement } from "../shared/settlement.ts";
import { stateOfRow, type TransactionRow } from "../transactions/transactions.ts";
import {
  agentUrls,
  FEEDBACK_TAG1,
  FEEDBACK_TAG2,
  FEEDBACK_VALUE_DECIMALS,
  feedbackFileText,
  feedbackFileUrl,
  feedbackValueOfRating,
} from "./erc8004-files.ts";
import { erc8004Identities } from "./erc8004-identity.ts";

/*
 * A hosted reviewer's review, given as ERC-8004 feedback to the reviewed agent's identity: its
 * custodial wallet calls ReputationRegistry.giveFeedback (gas topped up by the relayer) with the
 * URI and keccak256 of a feedback file that carries the proof of payment, the release of the
 * escrow behind the review. Only a released escrow is reviewed on chain. The file and the
 * transaction are recorded on the review in the outbox's database transaction, so a review is
 * given once, whoever asks again.
 */

type Agent = typeof agents.$inferSelect;
type Review = typeof reviews.$inferSelect;

export interface GivenFeedback {
  txHash: string;
  /** Null until the transaction is mined. */
  feedbackIndex: number | null;
}

/** Thrown inside the outbox's database transaction when the review was given meanwhile. */
class FeedbackAlreadySent extends Error {}

export function erc8004ReviewFeedback(
  deps: Pick<Deps, "db" | "config" | "chain" | "relayer" | "indexed" | "erc8004" | "hostedSender" | "logger">,
  paths: ApiPaths,
) {
  const { db, config, chain, erc8004, hostedSender } = deps;
  const settle = createSettlement(deps);
  const identities = erc8004Identities(db, chain.chainId);
  const escrowContract = getAddress(chain.deployment.contracts.AgentEscrow.address);

  async function recordIndex(reviewId: string, feedbackIndex: number, txHash?: string): Promise<void> {
    await db
      .update(reviews)
      .set({ erc8004FeedbackIndex: feedbackIndex, ...(txHash && { erc8004FeedbackTxHash: txHash }) })
      .where(eq(reviews.id, reviewId));
  }

  /** The receipt of a feedback transaction the reviewer sent: its index, recorded. */
  async function recordReceipt(
    review: Review,
    account: LocalAccount,
    txHash: Hex,
    receipt: TransactionReceipt,
  ): Promise<GivenFeedback> {
    const index = receipt.status === "success" ? erc8004.feedbackIndexIn(receipt, account.address) : undefined;
    if (index === undefined) throw new Error(`feedback transaction ${txHash} of review ${review.id} gave no feedback`);
    await recordIndex(review.id, Number(index));
    // Read-your-writes where it can: a late indexer only delays the feedback's count.
    await deps.indexed.wait(receipt.blockNumber);
    return { txHash, feedbackIndex: Number(index) };
  }

  /** A feedback transaction sent earlier (by this request's claim or another's): its receipt, recorded. */
  async function finish(review: Review, account: LocalAccount, txHash: Hex): Promise<GivenFeedback> {
    return recordReceipt(review, account, txHash, await hostedSender.confirm(account, txHash));
  }

  return {
    /**
     * Gives `review` on chain when its reviewer is hosted, the reviewed agent has an identity and a
     * released escrow is behind it; null when it is not to be given. Asking again never gives it
     * twice: a recorded transaction is finished, one the indexer saw is recorded.
     */
    async give(input: {
      review: Review;
      reviewer: Agent;
      reviewee: Agent;
      transaction: TransactionRow;
      /** Public base URL of this API. */
      base: string;
    }): Promise<GivenFeedback | null> {
      const { review, reviewer, reviewee, transaction, base } = input;
      if (!reviewer.hosted) return null;
      const escrow = transaction.escrow;
      if (stateOfRow(transaction) !== "RELEASED" || !escrow?.settledTxHash) return null;
      const revieweeUrls = agentUrls(base, reviewee.id, paths);
      const identity = await identities.identityOf(reviewee, revieweeUrls.registrationFile);
      if (!identity) return null;

      const account = custodialAccount(reviewer, config.masterKey);
      if (review.erc8004FeedbackTxHash) {
        if (review.erc8004FeedbackIndex !== null) {
          return { txHash: review.erc8004FeedbackTxHash, feedbackIndex: review.erc8004FeedbackIndex };
        }
        await hostedSender.resume(account);
        return finish(review, account, review.erc8004FeedbackTxHash as Hex);
      }
      const feedbackUri = feedbackFileUrl(base, review.id, paths);
      const seen = await identities.indexedFeedback(identity.agentId, account.address, feedbackUri);
      if (seen) {
        await recordIndex(review.id, seen.feedbackIndex, seen.txHash);
        return { txHash: seen.txHash, feedbackIndex: seen.feedbackIndex };
      }

      const file = feedbackFileText({
        chainId: chain.chainId,
        agentRegistry: erc8004.agentRegistry,
        agentId: identity.agentId,
        clientAddress: account.address,
        createdAt: review.createdAt,
        rating: review.rating,
        comment: review.comment,
        endpoint: revieweeUrls.profile,
        review: { id: review.id, transactionId: review.transactionId },
        payment: {
          buyer: getAddress(escrow.buyer),
          seller: getAddress(escrow.seller),
          escrowContract,
          escrowId: escrow.id,
          releaseTxHash: escrow.settledTxHash,
        },
      });
      const call = erc8004.giveFeedbackCall({
        agentId: identity.agentId,
        value: feedbackValueOfRating(review.rating),
        valueDecimals: FEEDBACK_VALUE_DECIMALS,
        tag1: FEEDBACK_TAG1,
        tag2: FEEDBACK_TAG2,
        endpoint: revieweeUrls.profile,
        feedbackUri,
        feedbackHash: keccak256(toBytes(file)),
      });
      let sent: Awaited<ReturnType<typeof settle<HostedSubmission>>>;
      try {
        sent = await settle<HostedSubmission>(
          { ...call, purpose: "erc8004 feedback" },
          {
            via: {
              submit: async (request) => {
                const submitted = await hostedSender.submit(account, request);
                // Logged once sent, before the wait for the receipt.
                deps.logger.info(
                  { review_id: review.id, tx_hash: submitted.txHash, top_up_wei: submitted.topUpWei.toString() },
                  "erc8004 feedback sent",
                );
                return submitted;
              },
              confirm: (txHash) => hostedSender.confirm(account, txHash),
            },
            transactionId: review.transactionId,
            record: async (tx, { txHash }) => {
              const claimed = await tx
                .update(reviews)
                .set({ erc8004FeedbackFile: file, erc8004FeedbackTxHash: txHash })
                .where(and(eq(reviews.id, review.id), isNull(reviews.erc8004FeedbackTxHash)))
                .returning({ id: reviews.id });
              if (claimed.length === 0) throw new FeedbackAlreadySent();
            },
            // The caller (domain/reviews/reviews.ts) logs any failure: the review stands without feedback.
            refused: (reason) => conflict(`The reputation registry refused the feedback: ${reason}`),
            // No `indexed`: a late indexer must not fail the feedback (recordReceipt waits best-effort).
          },
        );
      } catch (error) {
        if (!(error instanceof FeedbackAlreadySent)) throw error;
        const [current] = await db.select().from(reviews).where(eq(reviews.id, review.id));
        if (!current?.erc8004FeedbackTxHash) throw error;
        return finish(current, account, current.erc8004FeedbackTxHash as Hex);
      }
      // A reverted receipt is answered as it is (no `reverted`): recordReceipt refuses it.
      return recordReceipt(review, account, sent.txHash, sent.receipt);
    },
  };
}
