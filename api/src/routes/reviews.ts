import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { requireAgent } from "../auth/require-agent.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../db/cursor.ts";
import { agents, listings, reviews } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { erc8004ReviewFeedback } from "../domain/erc8004-feedback.ts";
import { conflict, forbidden, notFound } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import { queryTransactions, stateOfRow, type TransactionRow } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { publicBaseUrl } from "../http/request.ts";
import { notify } from "../notifications/notify.ts";
import { ActingAgentId, bearerSecurity, Cursor, errorResponses, Limit, Uuid } from "../schemas/common.ts";
import { formatRating } from "./listings.ts";

/*
 * Reviews: each party of a RELEASED transaction may rate the other once (1 to 5, an optional
 * comment). A buyer's review of the seller also counts in the listing's avg_rating, in the same
 * database transaction. A hosted reviewer's review of an agent with an ERC-8004 identity is also
 * given on chain as feedback; the review stands even when that step fails (it is logged).
 * GET /api/agents/{id}/reviews lists what an agent received.
 */

export const MAX_REVIEW_COMMENT = 2_000;

const ReviewBody = z
  .object({
    rating: z.number().int().min(1).max(5),
    comment: z.string().max(MAX_REVIEW_COMMENT).optional(),
    ...ActingAgentId,
  })
  .openapi("ReviewRequest");

const AgentRef = z.object({ id: Uuid, name: z.string() });

const Review = z
  .object({
    id: Uuid,
    transaction_id: Uuid,
    listing_id: Uuid.nullable(),
    reviewer: AgentRef,
    reviewee: AgentRef,
    rating: z.number().int(),
    comment: z.string().nullable(),
    created_at: z.string(),
    erc8004_feedback: z
      .object({
        tx_hash: z.string(),
        feedback_index: z.number().int().nullable().openapi({ description: "Null until mined" }),
      })
      .nullable()
      .openapi({
        description:
          "The review as ERC-8004 feedback to the reviewed agent's identity (hosted reviewers, once the reviewed agent is registered); its file is GET /api/reviews/{id}/feedback.json",
      }),
  })
  .openapi("Review");

const ReviewPage = z
  .object({
    agent_id: Uuid,
    avg_rating: z.string().openapi({ description: "Over every review received, two decimals" }),
    review_count: z.number().int(),
    reviews: z.array(Review),
    next_cursor: z.string().nullable(),
  })
  .openapi("ReviewPage");

const reviewer = alias(agents, "reviewer");
const reviewee = alias(agents, "reviewee");

export function reviewRoutes(deps: Deps) {
  const { db, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const feedback = erc8004ReviewFeedback(deps);
  app.use("/api/transactions/:id/review", requireAgent(db));

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

  /** The review as ERC-8004 feedback, when it is to be given (see domain/erc8004-feedback.ts). */
  async function giveOnChain(
    review: ReviewRow["review"],
    reviewerRow: typeof agents.$inferSelect,
    transaction: TransactionRow,
    base: string,
  ): Promise<void> {
    if (!reviewerRow.hosted) return;
    const [revieweeRow] = await db.select().from(agents).where(eq(agents.id, review.revieweeAgentId));
    if (!revieweeRow) return;
    await feedback.give({ review, reviewer: reviewerRow, reviewee: revieweeRow, transaction, base });
  }

  const toReview = (row: ReviewRow): z.infer<typeof Review> => ({
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

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/transactions/{id}/review",
      tags: ["Reputation"],
      summary: "Review the other party of a RELEASED transaction (once per party)",
      security: bearerSecurity,
      request: {
        params: z.object({ id: z.string().openapi({ format: "uuid" }) }),
        body: { required: true, content: { "application/json": { schema: ReviewBody } } },
      },
      responses: {
        201: { description: "Reviewed", content: { "application/json": { schema: z.object({ review: Review }) } } },
        ...errorResponses(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const caller = c.get("agent").row;
      if (!isUuid(id)) throw notFound("Transaction");
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
            rating: body.rating,
            comment: body.comment ?? null,
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
                rating: body.rating,
                reviewer: { id: caller.id, name: caller.name },
              },
            },
          ]);
        }
        if (review && sellerReviewed && transaction.listingId) {
          await tx
            .update(listings)
            .set({
              ratingSum: sql`${listings.ratingSum} + ${body.rating}`,
              ratingCount: sql`${listings.ratingCount} + 1`,
            })
            .where(eq(listings.id, transaction.listingId));
        }
        return review;
      });
      if (!inserted) throw conflict("You have already reviewed this transaction", { transaction_id: id });
      deps.readCache?.invalidate();
      // The review is stored: a failure to give it on chain is logged, and the answer says null.
      await giveOnChain(inserted, caller, row, publicBaseUrl(c, deps.config.publicBaseUrl)).catch((error: unknown) =>
        c.get("logger").error({ err: error, review_id: inserted.id }, "erc8004 feedback failed"),
      );
      const [saved] = await selectReviews(eq(reviews.id, inserted.id), 1);
      return c.json({ review: toReview(saved as ReviewRow) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{id}/reviews",
      tags: ["Reputation"],
      summary: "Reviews an agent received, newest first",
      request: {
        params: z.object({ id: z.string().openapi({ format: "uuid" }) }),
        query: z.strictObject({ limit: Limit, cursor: Cursor }),
      },
      responses: {
        200: { description: "A page of reviews", content: { "application/json": { schema: ReviewPage } } },
        ...errorResponses(400, 404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { limit, cursor } = c.req.valid("query");
      if (!isUuid(id)) throw notFound("Agent");
      const [agent] = await db
        .select({ id: agents.id })
        .from(agents)
        .where(and(eq(agents.id, id), eq(agents.isActive, true)));
      if (!agent) throw notFound("Agent");
      const after = olderThanCursor(reviews.createdAt, reviews.id, cursor);
      const [rows, [totals]] = await Promise.all([
        selectReviews(and(eq(reviews.revieweeAgentId, id), after), limit + 1),
        db
          .select({ sum: sql<number>`coalesce(sum(${reviews.rating}), 0)::int`, count: sql<number>`count(*)::int` })
          .from(reviews)
          .where(eq(reviews.revieweeAgentId, id)),
      ]);
      const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.review.id }));
      return c.json(
        {
          agent_id: id,
          avg_rating: formatRating(totals?.sum ?? 0, totals?.count ?? 0),
          review_count: totals?.count ?? 0,
          reviews: page.map(toReview),
          next_cursor: nextCursor,
        },
        200,
      );
    },
  );

  return app;
}
