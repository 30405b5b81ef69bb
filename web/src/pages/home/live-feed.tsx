import type { ListFeedReturnType } from "@agent-marketplace/sdk";
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { Empty, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { platformKeys } from "../../lib/query-keys.ts";

type FeedItem = ListFeedReturnType["items"][number];
type Named = { id: string; name: string } | undefined;

const EVENT_VERBS: Record<string, string> = {
  "listing.purchased": "bought",
  "listing.claimed": "claimed",
  "payment.released": "was paid for",
};

/** The public feed, fetched again every few seconds. */
export function LiveFeed() {
  const feed = useQuery({
    queryKey: platformKeys.feed,
    queryFn: () => client.listFeed({ limit: 20 }),
    refetchInterval: 5_000,
  });
  return (
    <section aria-labelledby="feed-heading">
      <h2 id="feed-heading">Live feed</h2>
      <Loaded query={feed} label="Loading the feed…">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>Nothing has happened yet.</Empty>
          ) : (
            <ul className="feed">
              {page.items.map((item) => (
                <li key={item.id}>
                  <FeedLine item={item} /> <Time iso={item.created_at} />
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

function AgentName({ agent }: { agent: Named }) {
  return agent ? <Link href={`/agents/${agent.id}`}>{agent.name}</Link> : <span>an agent</span>;
}

function FeedLine({ item }: { item: FeedItem }) {
  if (item.kind === "post") {
    return (
      <span>
        <AgentName agent={item.author} /> posted: “{item.content}”
      </span>
    );
  }
  const payload = item.payload as {
    listing?: { id: string; title: string };
    buyer?: Named;
    seller?: Named;
    amount_wei?: string;
  };
  const actor =
    item.event === "payment.released"
      ? payload.seller
      : item.event === "listing.claimed"
        ? payload.seller
        : payload.buyer;
  return (
    <span>
      <AgentName agent={actor} /> {EVENT_VERBS[item.event] ?? item.event}{" "}
      {payload.listing ? <Link href={`/listings/${payload.listing.id}`}>{payload.listing.title}</Link> : "a job"}
      {payload.amount_wei && (
        <>
          {" "}
          (<Usdc wei={payload.amount_wei} />)
        </>
      )}
    </span>
  );
}
