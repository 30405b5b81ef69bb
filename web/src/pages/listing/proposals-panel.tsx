import type { GetListingReturnType, GetProposalReturnType } from "@agent-marketplace/sdk";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { AsOwnedAgent } from "../../components/as-owned-agent.tsx";
import { balanceLines, feeLines, useOwnedAgent } from "../../components/money-review.tsx";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { SignInButton } from "../../components/session-controls.tsx";
import { Empty, ErrorNote, Loaded, Loading } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { useToast } from "../../components/toasts.tsx";
import { agentClient } from "../../lib/client.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { useFeeBps } from "../../lib/platform-info.ts";
import { listingKeys } from "../../lib/query-keys.ts";
import { useSession } from "../../lib/session.ts";
import { LISTING_STATE_TEXT, OFFERS_POLL } from "./listing-state.ts";

/*
 * Proposals on a bounty that takes them (in place of Claim), for a signed-in owner: as the poster
 * (one of its agents posted it), every proposal with Accept and Decline while it is pending; as a
 * hunter, its agent's proposals with Withdraw, or a new proposal. Accepting is reviewed first (the
 * reward's figures, and that the other proposals are declined). The list is read again every few
 * seconds while the page is visible.
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
    ...OFFERS_POLL,
  });
  return (
    <Loaded query={proposals} label="Loading the proposals…">
      {(page) => {
        const pendingCount = page.proposals.filter((proposal) => proposal.status === "PENDING").length;
        const pending = pendingCount > 0;
        const taken = page.proposals.some((proposal) => proposal.status === "ACCEPTED");
        return (
          <>
            {asPoster && (
              <p data-testid="seller-view">
                Your bounty: it is {LISTING_STATE_TEXT[listing.state]}.{" "}
                <Link href={`/owner/agents/${agentId}#listings`}>Manage it on your agent's page</Link>.
              </p>
            )}
            {!asPoster && !pending && !taken && listing.is_active && (
              <MakeProposal listing={listing} agentId={agentId} />
            )}
            {page.proposals.length === 0 ? (
              asPoster && <Empty>No proposals yet.</Empty>
            ) : (
              <ul className="offers">
                {page.proposals.map((proposal) => (
                  <ProposalItem
                    key={proposal.id}
                    proposal={proposal}
                    agentId={agentId}
                    asPoster={asPoster}
                    othersPending={pendingCount - (proposal.status === "PENDING" ? 1 : 0)}
                  />
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

function ProposalItem({
  proposal,
  agentId,
  asPoster,
  othersPending,
}: {
  proposal: Proposal;
  agentId: string;
  asPoster: boolean;
  /** How many other proposals are pending: accepting this one declines them. */
  othersPending: number;
}) {
  const refresh = useMarketChanged();
  const toast = useToast();
  const feeBps = useFeeBps();
  const poster = useOwnedAgent(agentId);
  const [reviewing, setReviewing] = useState(false);
  const act = useMutation({
    mutationFn: (move: "decline" | "withdraw") => {
      const agent = agentClient(agentId);
      if (move === "decline") return agent.declineProposal({ id: proposal.id });
      return agent.withdrawProposal({ id: proposal.id });
    },
    onSuccess: refresh,
  });
  // No price is sent: the reward is in escrow since the bounty was posted and cannot change.
  const accept = useMutation({
    mutationFn: () => agentClient(agentId).acceptProposal({ id: proposal.id }),
    onSuccess: (answer) => {
      setReviewing(false);
      refresh();
      toast({
        message: `Accepted ${proposal.agent.name}'s proposal: it is the bounty's worker now.`,
        link: {
          href: `/owner/transactions/${answer.claim.transaction_id}?agent=${agentId}`,
          label: "Open the transaction",
        },
      });
    },
    onError: refresh,
  });
  const busy = act.isPending || accept.isPending;
  const others =
    othersPending === 0
      ? "There are no other pending proposals."
      : `The ${othersPending === 1 ? "other pending proposal is" : `${othersPending} other pending proposals are`} declined, and their agents told.`;
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
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              accept.reset();
              setReviewing(true);
            }}
          >
            Accept
          </button>
          <button type="button" disabled={busy} onClick={() => act.mutate("decline")}>
            Decline
          </button>
        </fieldset>
      )}
      {reviewing && (
        <ReviewSheet
          title={`Accept ${proposal.agent.name}'s proposal`}
          lines={[
            { label: "Reward (in escrow since you posted)", wei: proposal.reward_wei, strong: true },
            ...feeLines(proposal.reward_wei, feeBps, proposal.agent.name),
            ...balanceLines(poster, 0n),
            { label: "Other proposals", text: others },
          ]}
          irreversible={
            <>
              {proposal.agent.name} becomes the bounty's worker on chain; no one else can claim it. {others} The reward
              goes to {proposal.agent.name} when you release it, or back to {poster?.name ?? "your agent"} by a refund
              if the work is not delivered in time.
            </>
          }
          confirmLabel={`Confirm: accept ${proposal.agent.name}`}
          onConfirm={() => accept.mutate()}
          onCancel={() => setReviewing(false)}
          pending={accept.isPending}
          error={accept.error}
        >
          <p>Your agent's balance does not change: the reward left it when the bounty was posted.</p>
        </ReviewSheet>
      )}
      {pending && !asPoster && (
        <button type="button" disabled={busy} onClick={() => act.mutate("withdraw")}>
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
