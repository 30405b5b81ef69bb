import type { GetListingReturnType, GetOfferReturnType, OfferStatus } from "@agent-marketplace/sdk";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { AsOwnedAgent } from "../../components/as-owned-agent.tsx";
import { balanceLines, feeLines, MoveRefusal, useOwnedAgent } from "../../components/money-review.tsx";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc, parseUsdc } from "../../lib/amounts.ts";
import { agentClient } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { useFeeBps } from "../../lib/platform-info.ts";
import { listingKeys } from "../../lib/query-keys.ts";
import { useSession } from "../../lib/session.ts";
import { OFFERS_POLL } from "./listing-state.ts";

/*
 * Offers on a negotiable FIXED listing, for a signed-in owner: as the seller (one of its agents
 * sells it), every offer with the moves of its turn; as a buyer, its agent's offer with the moves
 * of its turn, Withdraw, and Buy at the agreed price once ACCEPTED (after a review of the
 * figures); or a new offer. The list is read again every few seconds while the page is visible, so
 * the other side's move shows without a reload.
 */

type Listing = GetListingReturnType;
type Offer = GetOfferReturnType["offer"];

export function OffersPanel({ listing }: { listing: Listing }) {
  const session = useSession();
  if (listing.listing_type !== "FIXED" || !listing.is_negotiable || session.status !== "signed-in") return null;
  return (
    <section aria-labelledby="offers-heading">
      <h2 id="offers-heading">Offers</h2>
      <AsOwnedAgent listingAgentId={listing.agents.id} label="Offer as" action="make an offer">
        {(agentId, asSeller) => <OfferList listing={listing} agentId={agentId} asSeller={asSeller} />}
      </AsOwnedAgent>
    </section>
  );
}

/** The statuses of an offer still in play (the others are final). */
const LIVE: readonly OfferStatus[] = ["OPEN", "COUNTERED", "ACCEPTED"];

function OfferList({ listing, agentId, asSeller }: { listing: Listing; agentId: string; asSeller: boolean }) {
  const offers = useQuery({
    queryKey: listingKeys.offers(listing.id, agentId),
    queryFn: () => agentClient(agentId).listListingOffers({ id: listing.id, limit: 20 }),
    ...OFFERS_POLL,
  });
  return (
    <Loaded query={offers} label="Loading the offers…">
      {(page) => {
        const live = page.offers.find((offer) => LIVE.includes(offer.status));
        return (
          <>
            {!asSeller && !live && <MakeOffer listing={listing} agentId={agentId} />}
            {page.offers.length === 0 ? (
              asSeller && <Empty>No offers yet.</Empty>
            ) : (
              <ul className="offers">
                {page.offers.map((offer) => (
                  <OfferItem key={offer.id} offer={offer} listing={listing} agentId={agentId} asSeller={asSeller} />
                ))}
              </ul>
            )}
          </>
        );
      }}
    </Loaded>
  );
}

function MakeOffer({ listing, agentId }: { listing: Listing; agentId: string }) {
  const refresh = useMarketChanged();
  const [price, setPrice] = useState("");
  const [message, setMessage] = useState("");
  const priceWei = parseUsdc(price);
  const make = useMutation({
    mutationFn: () =>
      agentClient(agentId).makeOffer({
        id: listing.id,
        price_wei: priceWei ?? "0",
        ...(message.trim() && { message: message.trim() }),
      }),
    onSuccess: refresh,
  });
  return (
    <form
      aria-label="Make an offer"
      onSubmit={(event) => {
        event.preventDefault();
        make.mutate();
      }}
    >
      <label>
        Your price (USDC)
        <input inputMode="decimal" value={price} onChange={(event) => setPrice(event.target.value)} required />
      </label>
      <label>
        Note to the seller
        <input value={message} maxLength={2000} onChange={(event) => setMessage(event.target.value)} />
      </label>
      <button type="submit" aria-busy={make.isPending} disabled={make.isPending || priceWei === undefined}>
        Make offer
      </button>
      {make.isError && <ErrorNote error={make.error} />}
    </form>
  );
}

function OfferItem({
  offer,
  listing,
  agentId,
  asSeller,
}: {
  offer: Offer;
  listing: Listing;
  agentId: string;
  asSeller: boolean;
}) {
  const refresh = useMarketChanged();
  const toast = useToast();
  const feeBps = useFeeBps();
  const agent = useOwnedAgent(agentId);
  const [reviewing, setReviewing] = useState(false);
  const party = asSeller ? "seller" : "buyer";
  const myTurn = offer.turn === party;
  const [counter, setCounter] = useState("");
  const counterWei = parseUsdc(counter);
  const act = useMutation({
    mutationFn: (move: "accept" | "decline" | "withdraw" | "counter") => {
      const agent = agentClient(agentId);
      if (move === "accept") return agent.acceptOffer({ id: offer.id });
      if (move === "decline") return agent.declineOffer({ id: offer.id });
      if (move === "withdraw") return agent.withdrawOffer({ id: offer.id });
      return agent.counterOffer({ id: offer.id, price_wei: counterWei ?? "0" });
    },
    onSuccess: refresh,
  });
  const buy = useMutation({
    mutationFn: () =>
      agentClient(agentId).buyListing({
        id: offer.listing_id,
        offer_id: offer.id,
        // The agreed price the sheet shows: another one answers 409 price_changed and nothing is bought.
        expected_price_wei: offer.price_wei,
      }),
    onSuccess: (answer) => {
      setReviewing(false);
      refresh();
      toast({
        message:
          answer.state === "FUNDED"
            ? `Bought "${listing.title}" at the agreed ${formatUsdc(answer.amount_wei)} USDC: the escrow is funded.`
            : `Purchase of "${listing.title}" at the agreed price started: send the funding from the agent's wallet.`,
        link: { href: `/owner/transactions/${answer.transaction_id}?agent=${agentId}`, label: "Open the transaction" },
      });
    },
    onError: (error) => {
      if (isStatus(error, 409)) refresh();
    },
  });
  const last = offer.moves.at(-1);
  return (
    <li data-testid="offer" data-status={offer.status}>
      <p>
        <strong>
          <Usdc wei={offer.price_wei} />
        </strong>{" "}
        {asSeller ? `from ${offer.buyer.name}` : `to ${offer.seller.name}`} · <span>{offer.status}</span>
        {offer.turn && <span> · {myTurn ? "your turn" : `${offer.turn}'s turn`}</span>}
        {offer.expires_at && (
          <small>
            {" "}
            · expires <Time iso={offer.expires_at} />
          </small>
        )}
      </p>
      {last?.message && <blockquote>{last.message}</blockquote>}
      {myTurn && (
        <fieldset>
          <legend>Answer the offer</legend>
          <button type="button" disabled={act.isPending} onClick={() => act.mutate("accept")}>
            Accept
          </button>
          <button type="button" disabled={act.isPending} onClick={() => act.mutate("decline")}>
            Decline
          </button>
          <label>
            Counter (USDC)
            <input inputMode="decimal" value={counter} onChange={(event) => setCounter(event.target.value)} />
          </label>
          <button
            type="button"
            disabled={act.isPending || counterWei === undefined}
            onClick={() => act.mutate("counter")}
          >
            Counter
          </button>
        </fieldset>
      )}
      {!asSeller && offer.status === "ACCEPTED" && !buy.isSuccess && (
        <button
          type="button"
          onClick={() => {
            buy.reset();
            setReviewing(true);
          }}
        >
          Buy at <Usdc wei={offer.price_wei} />
        </button>
      )}
      {reviewing && (
        <ReviewSheet
          title={`Buy "${listing.title}" at the agreed price`}
          lines={[
            { label: "You pay (into escrow)", wei: offer.price_wei, strong: true },
            { label: "Listed price", text: <Usdc wei={listing.price_wei} /> },
            ...feeLines(offer.price_wei, feeBps, offer.seller.name),
            ...balanceLines(agent, offer.price_wei),
          ]}
          irreversible={
            <>
              The agreed price leaves {agent?.name ?? "your agent"}'s wallet into escrow at once, and the offer is used.
              The money comes back only by a refund (the seller misses the deadline, or a dispute rules for you).
            </>
          }
          confirmLabel={`Confirm: buy for ${formatUsdc(offer.price_wei)} USDC`}
          onConfirm={() => buy.mutate()}
          onCancel={() => setReviewing(false)}
          pending={buy.isPending}
        >
          <MoveRefusal error={buy.error} />
        </ReviewSheet>
      )}
      {!asSeller && LIVE.includes(offer.status) && !buy.isSuccess && (
        <button type="button" disabled={act.isPending} onClick={() => act.mutate("withdraw")}>
          Withdraw
        </button>
      )}
      {offer.transaction_id && (
        <p>
          <Link href={`/owner/transactions/${offer.transaction_id}?agent=${agentId}`}>Open the transaction</Link>
        </p>
      )}
      {buy.data && (
        <p role="status">
          {buy.data.state === "FUNDED" ? "Bought: the escrow is funded." : "Purchase started."}{" "}
          {!offer.transaction_id && (
            <Link href={`/owner/transactions/${buy.data.transaction_id}?agent=${agentId}`}>Open the transaction</Link>
          )}
        </p>
      )}
      {act.isError && <ErrorNote error={act.error} />}
    </li>
  );
}
