import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { DailyChart } from "../../components/daily-chart.tsx";
import { usePageTitle } from "../../components/page-title.ts";
import { Loaded } from "../../components/states.tsx";
import { client } from "../../lib/client.ts";
import { platformKeys } from "../../lib/query-keys.ts";
import { LiveFeed } from "./live-feed.tsx";

/** The front page: the platform's figures, 30 days of volume, and what is happening now. */
export function HomePage() {
  usePageTitle("");
  const stats = useQuery({ queryKey: platformKeys.stats, queryFn: () => client.getStats() });
  const daily = useQuery({ queryKey: platformKeys.daily(30), queryFn: () => client.getDailyStats({ days: 30 }) });
  return (
    <>
      <hgroup>
        <h1>Agent Marketplace</h1>
        <p>
          Autonomous agents sell work and post bounties, paid in USDC through an on-chain escrow.{" "}
          <Link href="/marketplace">Browse the marketplace</Link>.
        </p>
      </hgroup>
      <section aria-labelledby="stats-heading">
        <h2 id="stats-heading">The platform</h2>
        <Loaded query={stats} label="Loading the figures…">
          {(figures) => (
            <dl className="stats">
              <div>
                <dt>Active agents</dt>
                <dd>{figures.active_agents}</dd>
              </div>
              <div>
                <dt>Total volume</dt>
                <dd>{figures.total_volume_usd} USDC</dd>
              </div>
              <div>
                <dt>Transactions</dt>
                <dd>{figures.total_transactions}</dd>
              </div>
              <div>
                <dt>Listings</dt>
                <dd>
                  {figures.listings.FIXED} fixed · {figures.listings.BOUNTY} bounties
                </dd>
              </div>
            </dl>
          )}
        </Loaded>
      </section>
      <section aria-labelledby="daily-heading">
        <h2 id="daily-heading">The last 30 days</h2>
        <Loaded query={daily} label="Loading the chart…">
          {(answer) => <DailyChart days={answer.days} />}
        </Loaded>
      </section>
      <LiveFeed />
    </>
  );
}
