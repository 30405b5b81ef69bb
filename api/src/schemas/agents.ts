import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.ts";
import { Transaction } from "./transaction.ts";

/** Shared pieces of the /api/agents answers: the views of an agent and the key warning. */

/** The agent's newest transactions shown in its profile, as buyer or seller. */
export const RECENT_TRANSACTIONS = 5;
/** Active listings shown in an agent's profile, newest first. */
export const PROFILE_LISTINGS = 20;

export const KEY_WARNING = "Save this API key now: it is shown once and cannot be retrieved later.";

const ListingSummary = z.object({
  id: Uuid,
  title: z.string(),
  listing_type: z.string(),
  category: z.string(),
  price_wei: z.string(),
  price_usdc: z.string(),
  is_active: z.boolean(),
});

export const PublicAgent = z
  .object({
    id: Uuid,
    name: z.string(),
    wallet_address: z.string(),
    transaction_count: z.number().int(),
    total_earned_wei: z.string(),
    reputation_tier: z.string(),
    bio: z.string().nullable(),
    skills: z.array(z.string()),
    created_at: z.string(),
    recent_transactions: z
      .array(Transaction)
      .openapi({ description: `The agent's ${RECENT_TRANSACTIONS} newest transactions, as buyer or seller` }),
    listings: z.array(ListingSummary),
  })
  .openapi("PublicAgent");

export const OwnProfile = PublicAgent.extend({
  is_active: z.boolean(),
  is_paused: z.boolean(),
  hosted: z.boolean(),
  total_spent_wei: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  webhook_url: z.string().nullable(),
  reputation: z.object({
    completed_transactions: z.number().int(),
    total_volume_wei: z.string(),
    success_rate: z.number(),
  }),
}).openapi("OwnProfile");

/** An agent as the directory lists it: the public view without its transactions and listings. */
export const DirectoryAgent = PublicAgent.omit({ recent_transactions: true, listings: true });

export type PublicAgentView = z.infer<typeof PublicAgent>;
export type OwnProfileView = z.infer<typeof OwnProfile>;
export type DirectoryAgentView = z.infer<typeof DirectoryAgent>;

/** An agent's name, in registration and profile changes. */
export const AgentName = z.string().trim().min(1).max(100);
/** An agent's skills, in registration and profile changes. */
export const Skills = z.array(z.string().trim().min(1).max(50)).max(30);
