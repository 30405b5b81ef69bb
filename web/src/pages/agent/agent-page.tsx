import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { Hex } from "../../components/address.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { usePageTitle } from "../../components/page-title.ts";
import { ReviewsList } from "../../components/reviews-list.tsx";
import { Empty, Loaded } from "../../components/states.tsx";
import { TierBadge, TierGuide } from "../../components/tier-badge.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { agentKeys } from "../../lib/query-keys.ts";
import { stateWords } from "../../lib/transaction-words.ts";
import { Erc8004Section } from "./erc8004-section.tsx";
import { ReputationSection } from "./reputation-section.tsx";

/** An agent's public profile: tier, reputation (verifiable on chain), reviews, work, identity. */
export function AgentPage({ params }: { params: { id: string } }) {
  const agent = useQuery({ queryKey: agentKeys.detail(params.id), queryFn: () => client.getAgent({ id: params.id }) });
  usePageTitle(agent.data?.name ?? "Agent");
  if (!agent.data) {
    return (
      <>
        <h1>Agent</h1>
        <Loaded query={agent} label="Loading the agent…">
          {() => null}
        </Loaded>
      </>
    );
  }
  const profile = agent.data;
  return (
    <>
      <hgroup>
        <h1>{profile.name}</h1>
        <p>
          <TierBadge tier={profile.reputation_tier} /> · wallet <Hex value={profile.wallet_address} /> · joined{" "}
          <Time iso={profile.created_at} />
        </p>
      </hgroup>
      {profile.bio && <p>{profile.bio}</p>}
      {profile.skills.length > 0 && <p>Skills: {profile.skills.join(", ")}</p>}
      <dl className="stats">
        <div>
          <dt>Deals</dt>
          <dd data-testid="deal-count">{profile.transaction_count}</dd>
          <dd className="stat-note">as buyer or seller, in escrow or ended</dd>
        </div>
        <div>
          <dt>Earned</dt>
          <dd>
            <Usdc wei={profile.total_earned_wei} />
          </dd>
          <dd className="stat-note">as seller, after the fee</dd>
        </div>
      </dl>
      <ReputationSection agentId={profile.id} />
      <TierGuide />
      <section aria-labelledby="listings-heading">
        <h2 id="listings-heading">Listings</h2>
        {profile.listings.length === 0 ? (
          <Empty>No listings.</Empty>
        ) : (
          <ul>
            {profile.listings.map((listing) => (
              <li key={listing.id}>
                <Link href={`/listings/${listing.id}`}>{listing.title}</Link> ·{" "}
                {listing.listing_type === "BOUNTY" ? "bounty" : "service"} · <Usdc wei={listing.price_wei} />
                {!listing.is_active && " · inactive"}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent transactions</h2>
        {profile.recent_transactions.length === 0 ? (
          <Empty>No transactions yet.</Empty>
        ) : (
          <DataTable
            rows={profile.recent_transactions}
            rowKey={(transaction) => transaction.id}
            columns={[
              { header: "When", cell: (transaction) => <Time iso={transaction.created_at} /> },
              {
                header: "What",
                rowHeader: true,
                cell: (transaction) =>
                  transaction.listing_id ? (
                    <Link href={`/listings/${transaction.listing_id}`}>{transaction.description || "Listing"}</Link>
                  ) : (
                    transaction.description || "Direct escrow"
                  ),
              },
              {
                header: "Buyer",
                cell: (transaction) => <Link href={`/agents/${transaction.buyer.id}`}>{transaction.buyer.name}</Link>,
              },
              {
                header: "Seller",
                cell: (transaction) =>
                  transaction.seller ? (
                    <Link href={`/agents/${transaction.seller.id}`}>{transaction.seller.name}</Link>
                  ) : (
                    "—"
                  ),
              },
              { header: "Amount", cell: (transaction) => <Usdc wei={transaction.amount_wei} /> },
              { header: "State", cell: (transaction) => stateWords(transaction) },
            ]}
          />
        )}
      </section>
      <ReviewsSection agentId={profile.id} />
      <Erc8004Section agentId={profile.id} />
    </>
  );
}

function ReviewsSection({ agentId }: { agentId: string }) {
  const reviews = useQuery({
    queryKey: agentKeys.reviews(agentId),
    queryFn: () => client.listAgentReviews({ id: agentId }),
  });
  return (
    <section aria-labelledby="reviews-heading">
      <h2 id="reviews-heading">Reviews</h2>
      <Loaded query={reviews} label="Loading the reviews…">
        {(page) => (
          <>
            {page.review_count > 0 && (
              <p>
                {page.review_count} {page.review_count === 1 ? "review" : "reviews"}, average {page.avg_rating} of 5
              </p>
            )}
            <ReviewsList reviews={page.reviews} />
          </>
        )}
      </Loaded>
    </section>
  );
}
