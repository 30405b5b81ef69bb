import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Logger } from "pino";
import { agents, listings, reviews, transactions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { notify } from "../../notifications/notify.ts";
import type { Agent, AgentRef } from "../agents/agent-summary.ts";
import { erc8004ReviewFeedback } from "../erc8004/erc8004-feedback.ts";
import { formatRating } from "../reads/ratings.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { conflict, forbidden, notFound } from "../shared/errors.ts";
import { queryTransactions, stateOfRow, type TransactionRow } from "../transactions/transactions.ts";

/*
 * Reviews: each party of a RELEASED transaction may rate the other once (1 to 5, an optional
 * comment). A buyer's review of the seller also counts in the listing's avg_rating, in the same
 * database transaction. A hosted reviewer's review of an agent with an ERC-8004 identity is also
 * given on chain as feedback; the review stands even when that step fails (it is logged).
 */

/** A review as both review routes answer it. */
export interface ReviewView {
  id: string;
  transaction_id: string;
  listing_id: string | null;
  reviewer: AgentRef;
  reviewee: AgentRef;
  rating: number;
  comment: string | null;
  created_at: string;
  erc8004_feedback: { tx_hash: string; feedback_index: number | null } | null;
}

export interface ReviewInput {
  transactionId: string;
  reviewer: Agent;
  rating: number;
  comment?: string;
  /** Where clients reach the API: the feedback file's URL starts with it. */
  base: string;
  /** Where a failure to give the review on chain is logged. */
  logger: Logger;
}

export interface ReceivedReviews {
  agentId: string;
  /** Over every review received, two decimals. */
  avgRating: string;
  reviewCount: number;
  reviews: ReviewView[];
  nextCursor: string | null;
}

const reviewer = alias(agents, "reviewer");
const reviewee = alias(agents, "reviewee");

export function reviewUseCases(deps: Deps, paths: ApiPaths) {
  const { db, chain } = deps;
  const feedback = erc8004ReviewFeedback(deps, paths);

  function selectReviews(where: SQL | undefined, limit: number) {
    return db
      .select({
        review: reviews,
        reviewerName: reviewer.name,
        revieweeName: reviewee.name,
        position: timestampPosition(reviews.createdAt),
      })
      .from(reviews)
      .innerJoin(reviewer, eq(reviewer.id, reviews.reviewerAgentId))
      .innerJoin(reviewee, eq(reviewee.id, reviews.revieweeAgentId))
      .where(where)
      .orderBy(desc(reviews.createdAt), desc(reviews.id))
      .limit(limit);
  }

  type ReviewRow = Awaited<ReturnType<typeof selectReviews>>[number];

  /** The review as ERC-8004 feedback, when it is to be given (see erc8004-feedback.ts). */
  async function giveOnChain(
    review: ReviewRow["review"],
    reviewerRow: Agent,
    transaction: TransactionRow,
    base: string,
  ): Promise<void> {
    if (!reviewerRow.hosted) return;
    const [revieweeRow] = await db.select().from(agents).where(eq(agents.id, review.revieweeAgentId));
    if (!revieweeRow) return;
    await feedback.give({ review, reviewer: reviewerRow, reviewee: revieweeRow, transaction, base });
  }

  const toReview = (row: ReviewRow): ReviewView => ({
    id: row.review.id,
    transaction_id: row.review.transactionId,
    listing_id: row.review.listingId,
    reviewer: { id: row.review.reviewerAgentId, name: row.reviewerName },
    reviewee: { id: row.review.revieweeAgentId, name: row.revieweeName },
    rating: row.review.rating,
    comment: row.review.comment,
    created_at: row.review.createdAt.toISOString(),
    erc8004_feedback: row.review.erc8004FeedbackTxHash
      ? { tx_hash: row.review.erc8004FeedbackTxHash, feedback_index: row.review.erc8004FeedbackIndex }
      : null,
  });

  return {
    /**
     * The reviewer's review of the other party of a RELEASED transaction, once. 404 for no such
     * transaction, 403 for a caller who is not a party, 409 before release or for a second review.
     */
    async review(input: ReviewInput): Promise<ReviewView> {
      const { transactionId: id, reviewer: caller, rating } = input;
      const [row] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
      if (!row) throw notFound("Transaction");
      const { transaction } = row;
      const otherParty =
        transaction.buyerAgentId === caller.id
          ? transaction.sellerAgentId
          : transaction.sellerAgentId === caller.id
            ? transaction.buyerAgentId
            : undefined;
      if (!otherParty) throw forbidden("Only the buyer or the seller may review this transaction");
      const state = stateOfRow(row);
      if (state !== "RELEASED") {
        throw conflict(`Only a RELEASED transaction is reviewed; this one is ${state}`, { state, transaction_id: id });
      }
      const sellerReviewed = otherParty === transaction.sellerAgentId;
      const inserted = await db.transaction(async (tx) => {
        const [review] = await tx
          .insert(reviews)
          .values({
            transactionId: id,
            listingId: transaction.listingId,
            reviewerAgentId: caller.id,
            revieweeAgentId: otherParty,
            rating,
            comment: input.comment ?? null,
          })
          .onConflictDoNothing()
          .returning();
        if (review) {
          await notify(tx, [
            {
              agentId: otherParty,
              kind: "review.received",
              dedupeKey: `review:${review.id}`,
              payload: {
                review_id: review.id,
                transaction_id: id,
                rating,
                reviewer: { id: caller.id, name: caller.name },
              },
            },
          ]);
        }
        if (review && sellerReviewed && transaction.listingId) {
          await tx
            .update(listings)
            .set({ ratingSum: sql`${listings.ratingSum} + ${rating}`, ratingCount: sql`${listings.ratingCount} + 1` })
            .where(eq(listings.id, transaction.listingId));
        }
        return review;
      });
      if (!inserted) throw conflict("You have already reviewed this transaction", { transaction_id: id });
      deps.readCache?.invalidate();
      // The review is stored: a failure to give it on chain is logged, and the answer says null.
      await giveOnChain(inserted, caller, row, input.base).catch((error: unknown) =>
        input.logger.error({ err: error, review_id: inserted.id }, "erc8004 feedback failed"),
      );
      const [saved] = await selectReviews(eq(reviews.id, inserted.id), 1);
      return toReview(saved as ReviewRow);
    },

    /** The reviews of a transaction (each party's, at most two), newest first; 404 for no such transaction. */
    async ofTransaction(transactionId: string): Promise<ReviewView[]> {
      const [transaction] = await db
        .select({ id: transactions.id })
        .from(transactions)
        .where(eq(transactions.id, transactionId));
      if (!transaction) throw notFound("Transaction");
      return (await selectReviews(eq(reviews.transactionId, transactionId), 2)).map(toReview);
    },

    /** A page of the reviews an active agent received, newest first, with its average; 404 for no such agent. */
    async received(agentId: string, page: { limit: number; cursor?: string }): Promise<ReceivedReviews> {
      const { limit, cursor } = page;
      const [agent] = await db
        .select({ id: agents.id })
        .from(agents)
        .where(and(eq(agents.id, agentId), eq(agents.isActive, true)));
      if (!agent) throw notFound("Agent");
      const after = olderThanCursor(reviews.createdAt, reviews.id, cursor);
      const [rows, [totals]] = await Promise.all([
        selectReviews(and(eq(reviews.revieweeAgentId, agentId), after), limit + 1),
        db
          .select({ sum: sql<number>`coalesce(sum(${reviews.rating}), 0)::int`, count: sql<number>`count(*)::int` })
          .from(reviews)
          .where(eq(reviews.revieweeAgentId, agentId)),
      ]);
      const { page: shown, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.review.id }));
      return {
        agentId,
        avgRating: formatRating(totals?.sum ?? 0, totals?.count ?? 0),
        reviewCount: totals?.count ?? 0,
        reviews: shown.map(toReview),
        nextCursor,
      };
    },
  };
}
