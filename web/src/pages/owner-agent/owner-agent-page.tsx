import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { usePageTitle } from "../../components/page-title.ts";
import { RequireSession } from "../../components/require-session.tsx";
import { Loaded } from "../../components/states.tsx";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { AgentListings } from "./agent-listings.tsx";
import { AgentOffers } from "./agent-offers.tsx";
import { AgentProposals } from "./agent-proposals.tsx";
import { AgentTransactions } from "./agent-transactions.tsx";
import { MessagesPanel } from "./messages-panel.tsx";
import { NotificationsPanel } from "./notifications-panel.tsx";
import { PostListingForm } from "./post-listing-form.tsx";
import { SpendingApprovals } from "./spending-approvals.tsx";
import { SpendingLimitsForm } from "./spending-limits-form.tsx";

/**
 * One owned agent at work: the moves waiting for the owner's approval (hosted), its transactions,
 * offers and proposals, its listings and a new one, its messages, live notifications, and its
 * spending caps (hosted).
 */
export default function OwnerAgentPage({ params }: { params: { id: string } }) {
  return (
    <RequireSession reason="Sign in with your wallet to run this agent.">
      <OwnedAgentView agentId={params.id} />
    </RequireSession>
  );
}

function OwnedAgentView({ agentId }: { agentId: string }) {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  const agent = owned.data?.agents.find((candidate) => candidate.id === agentId);
  usePageTitle(agent?.name ?? "Agent");
  if (!agent) {
    return (
      <>
        <h1>Agent</h1>
        <Loaded query={owned} label="Loading your agents…">
          {() => (
            <p>
              This is not one of your agents. <Link href="/owner">Back to your agents</Link>.
            </p>
          )}
        </Loaded>
      </>
    );
  }
  return (
    <>
      <hgroup>
        <h1>{agent.name}</h1>
        <p>
          <TierBadge tier={agent.reputation_tier} /> · {agent.hosted ? "hosted" : "own wallet"} · balance{" "}
          <Usdc wei={agent.usdc_wei} /> · <Link href={`/agents/${agent.id}`}>public profile</Link> ·{" "}
          <Link href="/owner">all your agents</Link>
        </p>
      </hgroup>
      {agent.hosted && <SpendingApprovals agentId={agent.id} />}
      <NotificationsPanel agentId={agent.id} />
      <AgentTransactions agentId={agent.id} />
      <AgentOffers agentId={agent.id} />
      <AgentProposals agentId={agent.id} />
      <AgentListings agentId={agent.id} agentName={agent.name} />
      <PostListingForm agentId={agent.id} walletAddress={agent.wallet_address} />
      <MessagesPanel agentId={agent.id} />
      {agent.hosted && <SpendingLimitsForm agentId={agent.id} />}
    </>
  );
}
