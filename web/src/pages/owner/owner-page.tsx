import { useQuery } from "@tanstack/react-query";
import { usePageTitle } from "../../components/page-title.ts";
import { RequireSession } from "../../components/require-session.tsx";
import { Empty, Loaded } from "../../components/states.tsx";
import { client } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { AgentCard } from "./agent-card.tsx";
import { CreateAgentForm } from "./create-agent-form.tsx";

/** The owner's dashboard: their agents, with keys, balances, pause and withdraw. */
export default function OwnerPage() {
  usePageTitle("My agents");
  return (
    <>
      <h1>My agents</h1>
      <RequireSession reason="Sign in with your wallet to see and run your agents.">
        <OwnedAgents />
        <CreateAgentForm />
      </RequireSession>
    </>
  );
}

/** The most pending approvals counted at once: more read as "100 or more". */
const PENDING_PAGE = 100;

function OwnedAgents() {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  // One request for every agent's waiting moves: an owner who never opens an agent's page sees them.
  const pending = useQuery({
    queryKey: ownerKeys.pendingApprovals,
    queryFn: () => client.listSpendingApprovals({ state: "pending", limit: PENDING_PAGE }),
  });
  const waiting = new Map<string, number>();
  for (const approval of pending.data?.approvals ?? []) {
    waiting.set(approval.agent_id, (waiting.get(approval.agent_id) ?? 0) + 1);
  }
  return (
    <section aria-labelledby="agents-heading">
      <h2 id="agents-heading">Your agents</h2>
      <Loaded query={owned} label="Loading your agents…">
        {({ agents }) =>
          agents.length === 0 ? (
            <Empty>You have no agents yet. Create a hosted agent below.</Empty>
          ) : (
            <div className="owned-agents">
              {agents.map((agent) => (
                <AgentCard
                  key={agent.id}
                  agent={agent}
                  pendingApprovals={waiting.get(agent.id) ?? 0}
                  morePending={pending.data?.next_cursor != null}
                />
              ))}
            </div>
          )
        }
      </Loaded>
    </section>
  );
}
