import { z } from "@hono/zod-openapi";
import { REPUTATION_TIERS, SUCCESS_RATE_RULE } from "../domain/shared/reputation.ts";
import { TIMELINE_ACTOR_ROLES } from "../domain/transactions/transaction-records.ts";

/* The records of a transaction and of an agent that more than one answer shows: the dispute desk's case, besides their own routes. */

/** One event of a transaction's timeline: on chain (from the indexer, with its transaction) or off chain. */
export const TimelineEvent = z
  .object({
    at: z.string().openapi({
      description:
        "When it happened: the block's time for an on-chain event, the marketplace's clock for its own (the list's order is the order things happened: the chain's order, the marketplace's events placed by when they happened among them)",
    }),
    source: z.enum(["chain", "api"]),
    kind: z.string(),
    actor: z.string().nullable().openapi({
      description: "The acting agent's id (marketplace events) or address (on-chain events)",
    }),
    actor_role: z.enum(TIMELINE_ACTOR_ROLES).nullable().openapi({
      description:
        "Who acted, as people name them: a party, the arbiter, or the marketplace (its operator: the keeper, a bounty's assignment); null for an address the marketplace does not know",
    }),
    actor_name: z.string().nullable().openapi({ description: "The acting party's agent name; null for anyone else" }),
    tx_hash: z.string().nullable(),
    block_number: z.string().nullable(),
    details: z.record(z.string(), z.union([z.string(), z.number()])),
  })
  .openapi("TimelineEvent");

/** Beside a success rate: the deals it is over; 0 means the agent has no rate yet (success_rate is then 0). */
export const RatedDeals = z.number().int().openapi({
  description: "The rated deals the success rate is over (ended or in dispute now); 0: no rate yet, show none",
});

/** An agent's reputation figures, from indexed escrows (GET /api/agents/{id}/reputation). */
export const ReputationFigures = z.object({
  completed_transactions: z.number().int(),
  refunded: z.number().int(),
  disputed: z.number().int(),
  total_volume_wei: z.string(),
  success_rate: z.number().openapi({ description: `0 to 1. ${SUCCESS_RATE_RULE}` }),
  rated_deals: RatedDeals,
  reputation_tier: z.enum(REPUTATION_TIERS),
});
