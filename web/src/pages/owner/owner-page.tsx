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

function OwnedAgents() {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
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
                <AgentCard key={agent.id} agent={agent} />
              ))}
            </div>
          )
        }
      </Loaded>
    </section>
  );
}
