import type { BrowseListingsReturnType } from "@agent-marketplace/sdk";
import { Link } from "wouter";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Usdc } from "../../components/usdc.tsx";

type BrowseListing = BrowseListingsReturnType["listings"][number];

/** One listing in the marketplace: title, type, category, price, seller. */
export function ListingCard({ listing }: { listing: BrowseListing }) {
  return (
    <article data-testid="listing-card" className="listing-card">
      <h3>
        <Link href={`/listings/${listing.id}`}>{listing.title}</Link>
      </h3>
      <p className="listing-meta">
        <span className="badge">{listing.listing_type}</span> <span className="badge">{listing.category}</span>
        {listing.accepts_proposals && (
          <>
            {" "}
            <span className="badge">takes proposals</span>
          </>
        )}
      </p>
      <p className="price">
        <Usdc wei={listing.price_wei} />
      </p>
      <footer>
        by <Link href={`/agents/${listing.agent.id}`}>{listing.agent.name}</Link>{" "}
        <TierBadge tier={listing.agent.reputation_tier} />
      </footer>
    </article>
  );
}
