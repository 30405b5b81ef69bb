import type {
  BuyListingReturnType,
  ClaimListingReturnType,
  GetListingReturnType,
  ListOwnedAgentsReturnType,
} from "@agent-marketplace/sdk";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { Link } from "wouter";
import { balanceLines, feeLines, MoveRefusal } from "../../components/money-review.tsx";
import { OwnedAgentSelect } from "../../components/owned-agent-select.tsx";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { SignInButton } from "../../components/session-controls.tsx";
import { ErrorNote, Loaded, Loading } from "../../components/states.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc } from "../../lib/amounts.ts";
import { agentClient, client } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { priceSplit } from "../../lib/fees.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { useFeeBps } from "../../lib/platform-info.ts";
import { listingKeys, ownerKeys } from "../../lib/query-keys.ts";
import { useSession } from "../../lib/session.ts";
import { LISTING_STATE_TEXT, OFFERS_POLL } from "./listing-state.ts";

const WalletCalls = lazy(() => import("../../wallet/wallet-calls.tsx"));

type Listing = GetListingReturnType;
type Bought = BuyListingReturnType;
type Agents = ListOwnedAgentsReturnType["agents"];

const transactionHref = (transactionId: string, agentId: string) =>
  `/owner/transactions/${transactionId}?agent=${agentId}`;

/**
 * Buy (FIXED) or Claim (BOUNTY) with one of the signed-in owner's agents; the seller's own view when
 * one of the owner's agents sells it.
 */
export function BuyPanel({ listing }: { listing: Listing }) {
  const session = useSession();
  const verb = listing.listing_type === "BOUNTY" ? "Claim" : "Buy";
  if (session.status === "signed-in") return <OwnerSide listing={listing} verb={verb} />;
  return (
    <article aria-labelledby="buy-heading">
      <h2 id="buy-heading">{verb}</h2>
      {session.status === "loading" ? (
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

function OwnerSide({ listing, verb }: { listing: Listing; verb: "Buy" | "Claim" }) {
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => client.listOwnedAgents() });
  const seller = owned.data?.agents.find((agent) => agent.id === listing.agents.id);
  if (seller) return <SellerView listing={listing} sellerId={seller.id} sellerName={seller.name} />;
  return (
    <article aria-labelledby="buy-heading">
      <h2 id="buy-heading">{verb}</h2>
      <Loaded query={owned} label="Loading your agents…">
        {({ agents }) =>
          agents.length === 0 ? (
            <p>
              To {verb.toLowerCase()} this, <Link href="/owner">create an agent</Link>.
            </p>
          ) : verb === "Buy" ? (
            <BuyWith listing={listing} agents={agents} />
          ) : (
            <ClaimWith listing={listing} agents={agents} />
          )
        }
      </Loaded>
    </article>
  );
}

/** The owner's own listing: where it stands and where to manage it (its offers or proposals follow on the page). */
function SellerView({ listing, sellerId, sellerName }: { listing: Listing; sellerId: string; sellerName: string }) {
  const bounty = listing.listing_type === "BOUNTY";
  const talks = bounty ? listing.accepts_proposals : listing.is_negotiable;
  return (
    <article aria-labelledby="buy-heading" data-testid="seller-view">
      <h2 id="buy-heading">{bounty ? "Your bounty" : "Your listing"}</h2>
      <p>
        Your agent <strong>{sellerName}</strong> {bounty ? "posted" : "sells"} this. It is{" "}
        <strong>{LISTING_STATE_TEXT[listing.state]}</strong>.
      </p>
      <p>
        <Link href={`/owner/agents/${sellerId}#listings`}>Manage it on {sellerName}'s page</Link>
        {bounty ? " (pause or deactivate)." : " (edit the price and description, pause or deactivate)."}
      </p>
      {talks && <p>{bounty ? "The proposals" : "The offers"} made to you are below.</p>}
    </article>
  );
}

/** The latest offer of the buying agent on this listing, when the listing takes offers (shared with the Offers panel). */
function useOwnOffer(listing: Listing, agentId: string) {
  const offers = useQuery({
    queryKey: listingKeys.offers(listing.id, agentId),
    queryFn: () => agentClient(agentId).listListingOffers({ id: listing.id, limit: 20 }),
    enabled: listing.is_negotiable && agentId !== "",
    ...OFFERS_POLL,
  });
  return offers.data?.offers[0];
}

function BuyWith({ listing, agents }: { listing: Listing; agents: Agents }) {
  const queryClient = useQueryClient();
  const marketChanged = useMarketChanged();
  const toast = useToast();
  const feeBps = useFeeBps();
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const [reviewing, setReviewing] = useState(false);
  const agent = agents.find((candidate) => candidate.id === agentId);
  const offer = useOwnOffer(listing, agentId);
  const buy = useMutation({
    mutationFn: (): Promise<Bought> =>
      // The price the sheet shows: if the seller changed it since, nothing is bought (409 price_changed).
      agentClient(agentId).buyListing({ id: listing.id, expected_price_wei: listing.price_wei }),
    onSuccess: (answer) => {
      setReviewing(false);
      marketChanged();
      toast(
        answer.state === "FUNDED"
          ? {
              message: `Bought "${listing.title}" for ${formatUsdc(answer.amount_wei)} USDC: the escrow is funded.`,
              link: { href: transactionHref(answer.transaction_id, agentId), label: "Open the transaction" },
            }
          : {
              message: `Purchase of "${listing.title}" started: send the funding from ${agent?.name ?? "the agent"}'s wallet.`,
              link: { href: transactionHref(answer.transaction_id, agentId), label: "Open the transaction" },
            },
      );
    },
    // A changed price: the page reads the listing again, and the sheet shows the new figures.
    onError: (error) => {
      if (isStatus(error, 409)) marketChanged();
    },
  });
  const confirm = useMutation({
    mutationFn: ({ transactionId, txHash }: { transactionId: string; txHash: string }) =>
      agentClient(agentId).confirmFunding({ id: transactionId, tx_hash: txHash }),
    onSuccess: (_, { transactionId }) => {
      void queryClient.invalidateQueries({ queryKey: ownerKeys.all });
      toast({
        message: `Bought "${listing.title}": the escrow is funded.`,
        link: { href: transactionHref(transactionId, agentId), label: "Open the transaction" },
      });
    },
  });

  const answer = buy.data;
  const transactionLink = (transactionId: string) => (
    <Link href={transactionHref(transactionId, agentId)}>Open the transaction</Link>
  );
  if (answer && (answer.state === "FUNDED" || confirm.isSuccess)) {
    return (
      <div role="status">
        <p>Bought: the escrow is funded. {transactionLink(answer.transaction_id)}</p>
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
  const unavailable = listing.state !== "active";
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        buy.reset();
        setReviewing(true);
      }}
    >
      <OwnedAgentSelect agents={agents} value={agentId} onChange={setAgentId} />
      {offer?.status === "PURCHASED" && offer.transaction_id ? (
        // Bought at the offer's price: the full price is not offered beside it.
        <p role="status">
          {agent?.name} bought this at its offer's price, <Usdc wei={offer.price_wei} />.{" "}
          {transactionLink(offer.transaction_id)}
        </p>
      ) : offer?.status === "ACCEPTED" ? (
        <p>
          The seller accepted {agent?.name}'s offer of <Usdc wei={offer.price_wei} />: buy at that price under Offers
          below.
        </p>
      ) : unavailable ? (
        <p>This listing is {LISTING_STATE_TEXT[listing.state]}: it cannot be bought now.</p>
      ) : (
        <button type="submit" disabled={!agentId}>
          Buy
        </button>
      )}
      {reviewing && (
        <ReviewSheet
          title={`Buy "${listing.title}"`}
          lines={[
            { label: "You pay (into escrow)", wei: listing.price_wei, strong: true },
            ...feeLines(listing.price_wei, feeBps, listing.agents.name),
            ...balanceLines(agent, listing.price_wei),
          ]}
          irreversible={
            <>
              The price leaves {agent?.name ?? "your agent"}'s wallet into escrow at once. It comes back only by a
              refund (the seller misses the deadline, or a dispute rules for you); the seller is paid when you release
              it.
            </>
          }
          confirmLabel={`Confirm: buy for ${formatUsdc(listing.price_wei)} USDC`}
          onConfirm={() => buy.mutate()}
          onCancel={() => setReviewing(false)}
          pending={buy.isPending}
        >
          {agent && !agent.hosted && <p>{agent.name} pays from its own wallet: you send the funding from it next.</p>}
          <MoveRefusal error={buy.error} />
        </ReviewSheet>
      )}
    </form>
  );
}

/** Claim a bounty: it costs nothing (the reward is in escrow); the agent becomes its worker. */
function ClaimWith({ listing, agents }: { listing: Listing; agents: Agents }) {
  const marketChanged = useMarketChanged();
  const toast = useToast();
  const feeBps = useFeeBps();
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const claim = useMutation({
    mutationFn: (): Promise<ClaimListingReturnType> => client.claimListing({ id: listing.id, agent_id: agentId }),
    onSuccess: (answer) => {
      marketChanged();
      toast({
        message: `Claimed "${listing.title}": deliver the work before the deadline.`,
        link: { href: transactionHref(answer.transaction_id, agentId), label: "Open the transaction" },
      });
    },
    onError: (error) => {
      if (isStatus(error, 409)) marketChanged();
    },
  });
  if (claim.data) {
    return (
      <div role="status">
        <p>
          Claimed: your agent is the bounty's worker.{" "}
          <Link href={transactionHref(claim.data.transaction_id, agentId)}>Open the transaction</Link>
        </p>
      </div>
    );
  }
  const paid = feeBps === undefined ? undefined : priceSplit(listing.price_wei, feeBps).sellerWei;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        claim.mutate();
      }}
    >
      <p>
        Claiming costs nothing: the reward, <Usdc wei={listing.price_wei} />, is in escrow already. Your agent becomes
        the worker, delivers before the deadline, and is paid{" "}
        {paid !== undefined ? (
          <>
            <Usdc wei={paid} /> (the reward less the platform fee)
          </>
        ) : (
          "the reward less the platform fee"
        )}{" "}
        when the poster releases it.
      </p>
      <OwnedAgentSelect agents={agents} value={agentId} onChange={setAgentId} />
      {listing.state === "active" ? (
        <button type="submit" aria-busy={claim.isPending} disabled={claim.isPending || !agentId}>
          Claim
        </button>
      ) : (
        <p>This bounty is {LISTING_STATE_TEXT[listing.state]}: it cannot be claimed now.</p>
      )}
      {claim.isError && <ErrorNote error={claim.error} />}
    </form>
  );
}
