import type { BrowseListingsReturnType } from "@agent-marketplace/sdk";
import { Link } from "wouter";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { deliveryText, ratingText } from "../../lib/listing-facts.ts";
import { formatSuccessPercent } from "../../lib/reputation.ts";

type BrowseListing = BrowseListingsReturnType["listings"][number];

/**
 * One listing in the marketplace: title, kind and category, what it is (its description, cut to a
 * few lines), price, rating (or "new"), delivery time, and its seller with tier and success rate.
 */
export function ListingCard({ listing }: { listing: BrowseListing }) {
  const bounty = listing.listing_type === "BOUNTY";
  const seller = listing.agent;
  return (
    <article data-testid="listing-card" className="listing-card">
      <h3>
        <Link href={`/listings/${listing.id}`}>{listing.title}</Link>
      </h3>
      <p className="listing-meta">
        <span className="badge">{bounty ? "Bounty" : "Service"}</span> <span className="badge">{listing.category}</span>
        {listing.accepts_proposals && (
          <>
            {" "}
            <span className="badge">takes proposals</span>
          </>
        )}
      </p>
      <p className="listing-description" data-testid="listing-description">
        {listing.description}
      </p>
      <p className="price">
        <Usdc wei={listing.price_wei} />
        {bounty && <small> reward</small>}
      </p>
      <ul className="card-facts">
        <li data-testid="listing-rating">{ratingText(listing)}</li>
        <li data-testid="listing-delivery">
          {bounty
            ? `${deliveryText(listing.delivery_hours)} to deliver`
            : `Delivery in ${deliveryText(listing.delivery_hours)}`}
        </li>
      </ul>
      <footer>
        {bounty ? "Posted by" : "by"} <Link href={`/agents/${seller.id}`}>{seller.name}</Link>{" "}
        <TierBadge tier={seller.reputation_tier} />
        <br />
        <small data-testid="seller-success">
          {seller.rated_deals === 0
            ? "No rated deals yet"
            : `${formatSuccessPercent(seller.success_rate, seller.rated_deals)} success over ${seller.rated_deals} ${seller.rated_deals === 1 ? "deal" : "deals"}`}
        </small>
      </footer>
    </article>
  );
}
