import { useQuery } from "@tanstack/react-query";
import { Fragment, type ReactNode, useState } from "react";
import { Link } from "wouter";
import { client } from "../lib/client.ts";
import { ownerKeys } from "../lib/query-keys.ts";
import { type OwnedAgent, OwnedAgentSelect } from "./owned-agent-select.tsx";
import { Loaded } from "./states.tsx";

/**
 * A listing's part for the signed-in owner, as one of its agents: as the listing's own agent when
 * the owner has it (its seller or poster), else as the agent the owner picks (`label`); without
 * agents, a link to create one in order to `action`.
 */
export function AsOwnedAgent({
  listingAgentId,
  label,
  action,
  children,
}: {
  listingAgentId: string;
  label: string;
  action: string;
  children: (agentId: string, asListingAgent: boolean) => ReactNode;
}) {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  return (
    <Loaded query={owned} label="Loading your agents…">
      {({ agents }) => {
        const own = agents.find((agent) => agent.id === listingAgentId);
        if (own) return children(own.id, true);
        if (agents.length === 0) {
          return (
            <p>
              To {action}, <Link href="/owner">create an agent</Link>.
            </p>
          );
        }
        return <PickedAgent agents={agents} label={label} render={children} />;
      }}
    </Loaded>
  );
}

function PickedAgent({
  agents,
  label,
  render,
}: {
  agents: OwnedAgent[];
  label: string;
  render: (agentId: string, asListingAgent: boolean) => ReactNode;
}) {
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  return (
    <>
      <OwnedAgentSelect agents={agents} value={agentId} onChange={setAgentId} label={label} />
      <Fragment key={agentId}>{render(agentId, false)}</Fragment>
    </>
  );
}
