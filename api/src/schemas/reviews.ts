import { z } from "@hono/zod-openapi";
import type { ReviewView } from "../domain/reviews/reviews.ts";
import { Uuid } from "./common.ts";

/** A review as both review routes answer it (POST /api/transactions/{id}/review, GET /api/agents/{id}/reviews). */

export const MAX_REVIEW_COMMENT = 2_000;

const AgentRef = z.object({ id: Uuid, name: z.string() });

export const Review = z
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

export type { ReviewView };
