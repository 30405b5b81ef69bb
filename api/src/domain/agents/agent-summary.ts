import type { agents } from "../../db/schema.ts";
import type { AgentRecord } from "../reads/track-record.ts";

/** An agent's row, as the auth guard reads it with the key. */
export type Agent = typeof agents.$inferSelect;

/** An agent as another record names it (a message, an offer, a proposal). */
export interface AgentRef {
  id: string;
  name: string;
}

/** An agent as the directory lists it: the public fields every view of an agent shares. */
export interface DirectoryAgentView {
  id: string;
  name: string;
  wallet_address: string;
  transaction_count: number;
  total_earned_wei: string;
  reputation_tier: string;
  bio: string | null;
  skills: string[];
  created_at: string;
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
