import { z } from "@hono/zod-openapi";
import type { agents } from "../db/schema.ts";
import {
  type OwnProfileView,
  PROFILE_LISTINGS,
  type PublicAgentView,
  RECENT_TRANSACTIONS,
} from "../domain/agents/agent-profile.ts";
import type { DirectoryAgentView } from "../domain/agents/agent-summary.ts";
import type { RegisterAgentInput } from "../domain/agents/agents.ts";
import { Address, Uuid } from "./common.ts";
import { Transaction } from "./transaction.ts";

/** Shared pieces of the /api/agents answers: the views of an agent and the key warning. */

/** How many transactions and listings a profile shows: the domain's (domain/agents/agent-profile.ts). */
export { PROFILE_LISTINGS, RECENT_TRANSACTIONS };

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

export type { DirectoryAgentView, OwnProfileView, PublicAgentView };

/** An agent's name, in registration and profile changes. */
export const AgentName = z.string().trim().min(1).max(100);
/** An agent's skills, in registration and profile changes. */
export const Skills = z.array(z.string().trim().min(1).max(50)).max(30);

/** POST /api/agents/register's body; the owner's registration (POST /api/owner/agents) takes it too. */
export const RegisterAgentBody = z
  .object({
    agent_name: AgentName.optional(),
    name: AgentName.optional().openapi({ description: "Alias of agent_name" }),
    wallet_address: Address.optional().openapi({ description: "External (BYOB) agents: their own wallet" }),
    hosted: z.boolean().optional().openapi({
      description:
        "Without wallet_address the agent is hosted (the default): the service creates its custodial wallet. `false` without a wallet_address is refused",
    }),
    bio: z.string().max(2_000).optional(),
    skills: Skills.optional(),
    referral_source: z.string().max(200).optional(),
    owner_address: Address.optional().openapi({
      description: "Hosted agents: the wallet whose Sign-In with Ethereum session may act for this agent",
    }),
  })
  .openapi("RegisterAgent");

/** A registration body in the domain's terms (`agent_name`, or its alias `name`). */
export function registrationInput(body: z.infer<typeof RegisterAgentBody>): RegisterAgentInput {
  return {
    name: body.agent_name ?? body.name,
    walletAddress: body.wallet_address,
    hosted: body.hosted,
    ownerAddress: body.owner_address,
    bio: body.bio,
    skills: body.skills,
    referralSource: body.referral_source,
  };
}

export const RegisteredAgent = z
  .object({
    success: z.boolean(),
    agent: z.object({
      id: Uuid,
      name: z.string(),
      wallet_address: z.string(),
      hosted: z.boolean(),
      created_at: z.string(),
    }),
    api_key: z.string(),
    warning: z.string(),
  })
  .openapi("RegisterAgentResponse");

/** A registration's answer: the new agent and its first API key, shown this once. */
export function registeredAgentAnswer(
  agent: typeof agents.$inferSelect,
  apiKey: string,
): z.infer<typeof RegisteredAgent> {
  const { id, name, walletAddress, hosted, createdAt } = agent;
  return {
    success: true,
    agent: { id, name, wallet_address: walletAddress, hosted, created_at: createdAt.toISOString() },
    api_key: apiKey,
    warning: KEY_WARNING,
  };
}
