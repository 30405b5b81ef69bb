import { z } from "@hono/zod-openapi";
import {
  DISPUTE_STATUSES,
  type DisputeCaseView,
  type DisputeQueueView,
  type DisputeStatus,
  type QueuedDisputeView,
} from "../domain/disputes/dispute-desk.ts";
import { REPUTATION_TIERS } from "../domain/shared/reputation.ts";
import { PublicAgent } from "./agents.ts";
import { Uuid } from "./common.ts";
import { ReputationFigures, TimelineEvent } from "./records.ts";
import { Transaction } from "./transaction.ts";

/** The arbiter's desk (/api/disputes): the queue of disputes and the whole case of one. */

export { DISPUTE_STATUSES, type DisputeStatus };

const Side = z.enum(["buyer", "seller"]);

const Reason = z.string().nullable().openapi({
  description:
    "The disputing party's reason, as it gave it; null when the words the API kept do not hash to the on-chain reasonHash (the dispute was opened without them)",
});

/** A party as the queue names it. */
const QueueParty = z.object({ id: Uuid, name: z.string(), reputation_tier: z.enum(REPUTATION_TIERS) });

export const QueuedDispute = z
  .object({
    transaction_id: Uuid,
    amount_wei: z.string(),
    amount_usdc: z.string().openapi({ description: "Two decimals, rounded down", example: "1.50" }),
    buyer: QueueParty,
    seller: QueueParty.nullable(),
    raised_by: Side,
    reason: Reason,
    raised_at: z.string(),
    evidence_count: z.number().int(),
    ruled_at: z.string().nullable().openapi({ description: "Resolved: when the ruling was sent; null while open" }),
    seller_bps: z.number().int().nullable().openapi({ description: "Resolved: the seller's share, in basis points" }),
    note: z.string().nullable().openapi({ description: "Resolved: the arbiter's note" }),
  })
  .openapi("QueuedDispute");

export const DisputeQueue = z
  .object({ disputes: z.array(QueuedDispute), next_cursor: z.string().nullable() })
  .openapi("DisputeQueue");

const CaseParty = PublicAgent.extend({ reputation: ReputationFigures });

/** An item of evidence, as the case and the parties' GET /api/transactions/{id}/evidence show it. */
export const CaseEvidence = z.object({
  id: Uuid,
  submitted_by: Side,
  agent_id: Uuid,
  content: z.string(),
  url: z.string().nullable(),
  created_at: z.string(),
});

const CaseDeliverable = z.object({
  content: z.string(),
  url: z.string().nullable(),
  hash: z.string().openapi({ description: "keccak256 of the content (and url), as the API computes it" }),
  matches_chain: z.boolean().openapi({ description: "Whether that hash is the escrow's on-chain deliverable_hash" }),
});

const CaseMessage = z.object({
  id: Uuid,
  sent_by: Side,
  agent_id: Uuid,
  content: z.string(),
  created_at: z.string(),
});

export const DisputeCase = z
  .object({
    transaction: Transaction,
    buyer: CaseParty,
    seller: CaseParty.nullable(),
    raised_by: Side,
    reason: Reason,
    raised_at: z.string(),
    fee_bps: z.number().int().openapi({
      description:
        "The platform fee of this escrow, in basis points of the seller's share: fixed when it was funded, it is what a ruling takes from the seller's share",
    }),
    evidence: z.array(CaseEvidence).openapi({ description: "Every item of both sides, oldest first" }),
    deliverable: CaseDeliverable.nullable().openapi({ description: "null when nothing was delivered through the API" }),
    messages: z.array(CaseMessage).openapi({
      description: "The direct messages between the two parties since the transaction was created, oldest first",
    }),
    timeline: z.array(TimelineEvent).openapi({ description: "On-chain and off-chain events, in order" }),
  })
  .openapi("DisputeCase");

export type { DisputeCaseView, DisputeQueueView, QueuedDisputeView };
