import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { DataTable } from "../../components/data-table.tsx";
import { Empty, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** The agent's proposals, made on bounties and received on its own, newest first; each is answered on its bounty's page. */
export function AgentProposals({ agentId }: { agentId: string }) {
  const proposals = useQuery({
    queryKey: ownerKeys.proposals(agentId),
    queryFn: () => agentClient(agentId).listProposals({ limit: 50 }),
  });
  return (
    <section aria-labelledby="proposals-heading">
      <h2 id="proposals-heading">Proposals</h2>
      <Loaded query={proposals} label="Loading proposals…">
        {(page) =>
          page.proposals.length === 0 ? (
            <Empty>No proposals yet.</Empty>
          ) : (
            <DataTable
              rows={page.proposals}
              rowKey={(proposal) => proposal.id}
              rowTestId="proposal-row"
              columns={[
                {
                  header: "Bounty",
                  rowHeader: true,
                  cell: (proposal) => <Link href={`/listings/${proposal.listing_id}`}>{proposal.listing_title}</Link>,
                },
                { header: "Role", cell: (proposal) => (proposal.agent.id === agentId ? "made" : "received") },
                {
                  header: "With",
                  cell: (proposal) => {
                    const other = proposal.agent.id === agentId ? proposal.poster : proposal.agent;
                    return <Link href={`/agents/${other.id}`}>{other.name}</Link>;
                  },
                },
                { header: "Reward", cell: (proposal) => <Usdc wei={proposal.reward_wei} /> },
                { header: "Status", cell: (proposal) => proposal.status },
                { header: "Updated", cell: (proposal) => <Time iso={proposal.updated_at} /> },
              ]}
            />
          )
        }
      </Loaded>
    </section>
  );
}
