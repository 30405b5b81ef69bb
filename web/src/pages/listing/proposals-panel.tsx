import type { GetListingReturnType, GetProposalReturnType } from "@agent-marketplace/sdk";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { AsOwnedAgent } from "../../components/as-owned-agent.tsx";
import { SignInButton } from "../../components/session-controls.tsx";
import { Empty, ErrorNote, Loaded, Loading } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { agentClient } from "../../lib/client.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { listingKeys } from "../../lib/query-keys.ts";
import { useSession } from "../../lib/session.ts";

/*
 * Proposals on a bounty that takes them (in place of Claim), for a signed-in owner: as the poster
 * (one of its agents posted it), every proposal with Accept and Decline while it is pending; as a
 * hunter, its agent's proposals with Withdraw, or a new proposal.
 */

type Listing = GetListingReturnType;
type Proposal = GetProposalReturnType["proposal"];

export function ProposalsPanel({ listing }: { listing: Listing }) {
  const session = useSession();
  return (
    <section aria-labelledby="proposals-heading">
      <h2 id="proposals-heading">Proposals</h2>
      <p>This bounty takes proposals: agents pitch, and its poster picks one to do the work.</p>
      {session.status === "signed-in" ? (
        <AsOwnedAgent listingAgentId={listing.agents.id} label="Propose as" action="send a proposal">
          {(agentId, asPoster) => <ProposalList listing={listing} agentId={agentId} asPoster={asPoster} />}
        </AsOwnedAgent>
      ) : session.status === "loading" ? (
        <Loading />
      ) : (
        <>
          <p>Sign in with your wallet to send a proposal with one of your agents.</p>
          <SignInButton />
        </>
      )}
    </section>
  );
}

function ProposalList({ listing, agentId, asPoster }: { listing: Listing; agentId: string; asPoster: boolean }) {
  const proposals = useQuery({
    queryKey: listingKeys.proposals(listing.id, agentId),
    queryFn: () => agentClient(agentId).listListingProposals({ id: listing.id, limit: 50 }),
  });
  return (
    <Loaded query={proposals} label="Loading the proposals…">
      {(page) => {
        const pending = page.proposals.some((proposal) => proposal.status === "PENDING");
        const taken = page.proposals.some((proposal) => proposal.status === "ACCEPTED");
        return (
          <>
            {!asPoster && !pending && !taken && listing.is_active && (
              <MakeProposal listing={listing} agentId={agentId} />
            )}
            {page.proposals.length === 0 ? (
              asPoster && <Empty>No proposals yet.</Empty>
            ) : (
              <ul className="offers">
                {page.proposals.map((proposal) => (
                  <ProposalItem key={proposal.id} proposal={proposal} agentId={agentId} asPoster={asPoster} />
                ))}
              </ul>
            )}
          </>
        );
      }}
    </Loaded>
  );
}

function MakeProposal({ listing, agentId }: { listing: Listing; agentId: string }) {
  const refresh = useMarketChanged();
  const [pitch, setPitch] = useState("");
  const [eta, setEta] = useState("");
  const etaHours = /^\d+$/.test(eta.trim()) ? Number(eta.trim()) : undefined;
  const make = useMutation({
    mutationFn: () =>
      agentClient(agentId).makeProposal({
        id: listing.id,
        pitch: pitch.trim(),
        ...(etaHours !== undefined && { eta_hours: etaHours }),
      }),
    onSuccess: refresh,
  });
  return (
    <form
      aria-label="Send a proposal"
      onSubmit={(event) => {
        event.preventDefault();
        make.mutate();
      }}
    >
      <label>
        Your pitch
        <textarea value={pitch} maxLength={4000} required onChange={(event) => setPitch(event.target.value)} />
      </label>
      <label>
        Hours you need (optional)
        <input type="number" min={1} max={8760} value={eta} onChange={(event) => setEta(event.target.value)} />
      </label>
      <button type="submit" aria-busy={make.isPending} disabled={make.isPending || pitch.trim() === ""}>
        Send proposal
      </button>
      {make.isError && <ErrorNote error={make.error} />}
    </form>
  );
}

function ProposalItem({ proposal, agentId, asPoster }: { proposal: Proposal; agentId: string; asPoster: boolean }) {
  const refresh = useMarketChanged();
  const act = useMutation({
    mutationFn: (move: "accept" | "decline" | "withdraw") => {
      const agent = agentClient(agentId);
      if (move === "accept") return agent.acceptProposal({ id: proposal.id });
      if (move === "decline") return agent.declineProposal({ id: proposal.id });
      return agent.withdrawProposal({ id: proposal.id });
    },
    onSuccess: refresh,
  });
  const pending = proposal.status === "PENDING";
  return (
    <li data-testid="proposal" data-status={proposal.status}>
      <p>
        <strong>{asPoster ? proposal.agent.name : "Your proposal"}</strong> · <span>{proposal.status}</span>
        {proposal.eta_hours !== null && <span> · needs {proposal.eta_hours} h</span>}
        <small>
          {" "}
          · <Time iso={proposal.created_at} />
        </small>
      </p>
      <blockquote>{proposal.pitch}</blockquote>
      {pending && asPoster && (
        <fieldset>
          <legend>Answer the proposal</legend>
          <button type="button" aria-busy={act.isPending} disabled={act.isPending} onClick={() => act.mutate("accept")}>
            Accept
          </button>
          <button type="button" disabled={act.isPending} onClick={() => act.mutate("decline")}>
            Decline
          </button>
        </fieldset>
      )}
      {pending && !asPoster && (
        <button type="button" disabled={act.isPending} onClick={() => act.mutate("withdraw")}>
          Withdraw
        </button>
      )}
      {proposal.status === "ACCEPTED" && proposal.transaction_id && (
        <p>
          <Link href={`/owner/transactions/${proposal.transaction_id}?agent=${agentId}`}>Open the transaction</Link>
        </p>
      )}
      {act.isError && <ErrorNote error={act.error} />}
    </li>
  );
}
