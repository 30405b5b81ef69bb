import type {
  BuyListingReturnType,
  ClaimListingReturnType,
  GetListingReturnType,
  ListOwnedAgentsReturnType,
} from "@agent-marketplace/sdk";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { Link } from "wouter";
import { InsufficientBalance } from "../../components/insufficient-balance.tsx";
import { OwnedAgentSelect } from "../../components/owned-agent-select.tsx";
import { SignInButton } from "../../components/session-controls.tsx";
import { ErrorNote, Loaded, Loading } from "../../components/states.tsx";
import { agentClient, client } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { useSession } from "../../lib/session.ts";

const WalletCalls = lazy(() => import("../../wallet/wallet-calls.tsx"));

type Listing = GetListingReturnType;
type Bought = BuyListingReturnType;

/** Buy (FIXED) or Claim (BOUNTY) with one of the signed-in owner's agents. */
export function BuyPanel({ listing }: { listing: Listing }) {
  const session = useSession();
  const verb = listing.listing_type === "BOUNTY" ? "Claim" : "Buy";
  return (
    <article aria-labelledby="buy-heading">
      <h2 id="buy-heading">{verb}</h2>
      {session.status === "signed-in" ? (
        <BuyForm listing={listing} verb={verb} />
      ) : session.status === "loading" ? (
        <Loading />
      ) : (
        <>
          <p>Sign in with your wallet to {verb.toLowerCase()} this with one of your agents.</p>
          <SignInButton />
        </>
      )}
    </article>
  );
}

function BuyForm({ listing, verb }: { listing: Listing; verb: "Buy" | "Claim" }) {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  return (
    <Loaded query={owned} label="Loading your agents…">
      {({ agents }) => {
        const eligible = agents.filter((agent) => agent.id !== listing.agents.id);
        if (eligible.length === 0) {
          return (
            <p>
              You have no agent that can {verb.toLowerCase()} this. <Link href="/owner">Create one</Link>.
            </p>
          );
        }
        return <BuyWith listing={listing} verb={verb} agents={eligible} />;
      }}
    </Loaded>
  );
}

function BuyWith({
  listing,
  verb,
  agents,
}: {
  listing: Listing;
  verb: "Buy" | "Claim";
  agents: ListOwnedAgentsReturnType["agents"];
}) {
  const queryClient = useQueryClient();
  const marketChanged = useMarketChanged();
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const agent = agents.find((candidate) => candidate.id === agentId);
  const buy = useMutation({
    mutationFn: async (): Promise<Bought | ClaimListingReturnType> =>
      verb === "Buy"
        ? // The price this page shows: if the seller changed it since, nothing is bought (409 price_changed).
          agentClient(agentId).buyListing({ id: listing.id, expected_price_wei: listing.price_wei })
        : client.claimListing({ id: listing.id, agent_id: agentId }),
    onSuccess: marketChanged,
    // A changed price: the page reads the listing again, so the person sees the new one before buying.
    onError: (error) => {
      if (isStatus(error, 409)) marketChanged();
    },
  });
  const confirm = useMutation({
    mutationFn: ({ transactionId, txHash }: { transactionId: string; txHash: string }) =>
      agentClient(agentId).confirmFunding({ id: transactionId, tx_hash: txHash }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ownerKeys.all }),
  });

  const answer = buy.data;
  const transactionLink = (transactionId: string) => (
    <Link href={`/owner/transactions/${transactionId}?agent=${agentId}`}>Open the transaction</Link>
  );
  if (answer && (answer.state === "FUNDED" || confirm.isSuccess)) {
    return (
      <div role="status">
        <p>
          {verb === "Buy" ? "Bought" : "Claimed"}: the escrow is funded. {transactionLink(answer.transaction_id)}
        </p>
      </div>
    );
  }
  if (answer && "instructions" in answer) {
    return (
      <div>
        <p role="status">
          Your agent pays from its own wallet ({agent?.wallet_address}): send these transactions, then the marketplace
          checks them.
        </p>
        <ol>
          {answer.instructions.calls.map((call) => (
            <li key={call.data}>
              <code>{call.function}</code> on <code>{call.to}</code>
            </li>
          ))}
        </ol>
        <Suspense fallback={<Loading label="Loading the wallet…" />}>
          <WalletCalls
            calls={answer.instructions.calls}
            chainId={answer.instructions.chain_id}
            expectedAddress={agent?.wallet_address}
            onSent={(txHash) => confirm.mutate({ transactionId: answer.transaction_id, txHash })}
          />
        </Suspense>
        {confirm.isPending && <Loading label="Checking the funding…" />}
        {confirm.isError && <ErrorNote error={confirm.error} />}
        <p>{transactionLink(answer.transaction_id)}</p>
      </div>
    );
  }
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        buy.mutate();
      }}
    >
      <OwnedAgentSelect agents={agents} value={agentId} onChange={setAgentId} />
      <button type="submit" aria-busy={buy.isPending} disabled={buy.isPending || !agentId}>
        {verb}
      </button>
      {buy.isError &&
        (isStatus(buy.error, 402) ? <InsufficientBalance error={buy.error} /> : <ErrorNote error={buy.error} />)}
    </form>
  );
}
