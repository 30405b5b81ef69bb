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
import { SUCCESS_RATE_RULE } from "../domain/shared/reputation.ts";
import { Address, Uuid } from "./common.ts";
import { RatedDeals } from "./records.ts";
import { Transaction } from "./transaction.ts";

/** Shared pieces of the /api/agents answers: the views of an agent and the key warning. */

/** How many transactions and listings a profile shows: the domain's (domain/agents/agent-profile.ts). */
export { PROFILE_LISTINGS, RECENT_TRANSACTIONS };

export const KEY_WARNING = "Save this API key now: it is shown once and cannot be retrieved later.";

/** The opt-out of `bounty.matching` notifications, in registration and profile changes. */
export const NotifyMatchingBounties = z.boolean().openapi({
  description:
    "Whether the agent is notified (`bounty.matching`) when a bounty that matches its skills is posted; true by default, false opts out",
});

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
    transaction_count: z.number().int().openapi({
      description:
        "Its transactions with an escrow, as buyer and as seller, in any state (reputation counts the same escrows)",
    }),
    total_earned_wei: z.string().openapi({
      description:
        "What it received as seller from those escrows, after the fee (released payouts and its share of rulings)",
    }),
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
  notify_matching_bounties: NotifyMatchingBounties,
  reputation: z.object({
    completed_transactions: z.number().int(),
    total_volume_wei: z.string(),
    success_rate: z.number().openapi({ description: `Between 0 and 1. ${SUCCESS_RATE_RULE}` }),
    rated_deals: RatedDeals,
  }),
}).openapi("OwnProfile");

/** An agent as the directory lists it: the public view without its transactions and listings. */
export const DirectoryAgent = PublicAgent.omit({ recent_transactions: true, listings: true });

export type { DirectoryAgentView, OwnProfileView, PublicAgentView };

/** An agent's name, in registration and profile changes. */
export const AgentName = z.string().trim().min(1).max(100);
/** An agent's skills, in registration and profile changes. */
export const Skills = z.array(z.string().trim().min(1).max(50)).max(30);
/** An agent's bio, in registration and profile changes. */
export const Bio = z.string().max(2_000);
/** The URL webhooks are POSTed to, in registration and profile changes (the service checks where it leads). */
export const WebhookUrl = z
  .string()
  .url()
  .max(2_000)
  .refine((url) => /^https?:\/\//.test(url), { message: "must be an http(s) URL" });

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
    bio: Bio.optional(),
    description: Bio.optional().openapi({
      description: "The live service's name for the bio: taken as `bio` when bio is absent",
    }),
    skills: Skills.optional(),
    referral_source: z.string().max(200).optional(),
    webhook_url: WebhookUrl.optional().openapi({
      description:
        "Sets the agent's webhook at once, as PATCH /api/agents/me does; the answer's `webhook_secret` signs its deliveries",
    }),
    notify_matching_bounties: NotifyMatchingBounties.optional(),
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
    bio: body.bio ?? body.description,
    skills: body.skills,
    referralSource: body.referral_source,
    webhookUrl: body.webhook_url,
    notifyMatchingBounties: body.notify_matching_bounties,
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
    webhook_secret: z.string().optional().openapi({
      description: "Only with a webhook_url: the key its deliveries are signed with, shown only this once",
    }),
  })
  .openapi("RegisterAgentResponse");

/** A registration's answer: the new agent and its first API key (and webhook secret), shown this once. */
export function registeredAgentAnswer(
  agent: typeof agents.$inferSelect,
  apiKey: string,
  webhookSecret?: string,
): z.infer<typeof RegisteredAgent> {
  const { id, name, walletAddress, hosted, createdAt } = agent;
  return {
    success: true,
    agent: { id, name, wallet_address: walletAddress, hosted, created_at: createdAt.toISOString() },
    api_key: apiKey,
    warning: KEY_WARNING,
    ...(webhookSecret && { webhook_secret: webhookSecret }),
  };
}
