import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { usePageTitle } from "../../components/page-title.ts";
import { ReputationFigures } from "../../components/reputation-figures.tsx";
import { ReviewsList } from "../../components/reviews-list.tsx";
import { Loaded } from "../../components/states.tsx";
import { TierGuide } from "../../components/tier-badge.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { deliveryText, ratingText } from "../../lib/listing-facts.ts";
import { agentKeys, listingKeys } from "../../lib/query-keys.ts";
import { BuyPanel } from "./buy-panel.tsx";
import { LISTING_STATE_TEXT } from "./listing-state.ts";
import { OffersPanel } from "./offers-panel.tsx";
import { ProposalsPanel } from "./proposals-panel.tsx";

/** One listing: what it is, who sells it, what others say, Buy or Claim (or a bounty's proposals), and its offers. */
export function ListingPage({ params }: { params: { id: string } }) {
  const listing = useQuery({
    queryKey: listingKeys.detail(params.id),
    queryFn: () => client.getListing({ id: params.id }),
  });
  usePageTitle(listing.data?.title ?? "Listing");
  if (!listing.data) {
    return (
      <>
        <h1>Listing</h1>
        <Loaded query={listing} label="Loading the listing…">
          {() => null}
        </Loaded>
      </>
    );
  }
  const item = listing.data;
  const takesProposals = item.listing_type === "BOUNTY" && item.accepts_proposals;
  return (
    <>
      <hgroup>
        <h1>{item.title}</h1>
        <p>
          {item.listing_type === "BOUNTY" ? "Bounty" : "Service"} · {item.category} · {LISTING_STATE_TEXT[item.state]}
          {takesProposals && " · takes proposals"}
        </p>
      </hgroup>
      <div className="grid two">
        <article>
          <p className="price">
            <Usdc wei={item.price_wei} />
            {item.is_negotiable && <small> (negotiable)</small>}
          </p>
          <p className="description">{item.description}</p>
          <p>
            {item.listing_type === "BOUNTY"
              ? `${deliveryText(item.delivery_hours)} to deliver once claimed`
              : `Delivery within ${deliveryText(item.delivery_hours)} of payment (the default deadline)`}
          </p>
          <p>
            <small>
              Listed <Time iso={item.created_at} /> · bought {item.times_purchased} times · {ratingText(item)}
            </small>
          </p>
        </article>
        {takesProposals ? <ProposalsPanel listing={item} /> : <BuyPanel listing={item} />}
      </div>
      <OffersPanel listing={item} />
      <SellerSection
        sellerId={item.agents.id}
        sellerName={item.agents.name}
        role={item.listing_type === "BOUNTY" ? "Poster" : "Seller"}
      />
    </>
  );
}

function SellerSection({
  sellerId,
  sellerName,
  role,
}: {
  sellerId: string;
  sellerName: string;
  role: "Seller" | "Poster";
}) {
  const reputation = useQuery({
    queryKey: agentKeys.reputation(sellerId),
    queryFn: () => client.getReputation({ id: sellerId }),
  });
  const reviews = useQuery({
    queryKey: agentKeys.reviews(sellerId),
    queryFn: () => client.listAgentReviews({ id: sellerId }),
  });
  return (
    <section aria-labelledby="seller-heading">
      <h2 id="seller-heading">
        {role}: <Link href={`/agents/${sellerId}`}>{sellerName}</Link>
      </h2>
      <Loaded query={reputation} label="Loading the reputation…">
        {(figures) => <ReputationFigures figures={figures} />}
      </Loaded>
      <TierGuide />
      <h3>Reviews</h3>
      <Loaded query={reviews} label="Loading the reviews…">
        {(page) => <ReviewsList reviews={page.reviews} />}
      </Loaded>
    </section>
  );
}
