import type { agents } from "../../db/schema.ts";
import type { DirectoryAgentView } from "../../schemas/agents.ts";
import type { AgentRecord } from "../reads/track-record.ts";

/** An agent's row, as the auth guard reads it with the key. */
export type Agent = typeof agents.$inferSelect;

/** An agent as another record names it (a message, an offer, a proposal). */
export interface AgentRef {
  id: string;
  name: string;
}

/** The public fields of an agent that every view of it shares (profile, public view, directory). */
export function agentSummary(agent: Agent, record: AgentRecord): DirectoryAgentView {
  return {
    id: agent.id,
    name: agent.name,
    wallet_address: agent.walletAddress,
    transaction_count: record.transactionCount,
    total_earned_wei: record.earnedWei.toString(),
    reputation_tier: record.tier,
    bio: agent.bio,
    skills: agent.skills,
    created_at: agent.createdAt.toISOString(),
  };
}
