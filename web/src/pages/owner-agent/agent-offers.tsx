import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { DataTable } from "../../components/data-table.tsx";
import { Empty, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { agentClient } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** The agent's offers, made as buyer and received as seller, newest first; each is answered on its listing's page. */
export function AgentOffers({ agentId }: { agentId: string }) {
  const offers = useQuery({
    queryKey: ownerKeys.offers(agentId),
    queryFn: () => agentClient(agentId).listOffers({ limit: 50 }),
  });
  return (
    <section aria-labelledby="offers-heading">
      <h2 id="offers-heading">Offers</h2>
      <Loaded query={offers} label="Loading offers…">
        {(page) =>
          page.offers.length === 0 ? (
            <Empty>No offers yet.</Empty>
          ) : (
            <DataTable
              rows={page.offers}
              rowKey={(offer) => offer.id}
              rowTestId="offer-row"
              columns={[
                {
                  header: "Listing",
                  rowHeader: true,
                  cell: (offer) => <Link href={`/listings/${offer.listing_id}`}>{offer.listing_title}</Link>,
                },
                { header: "Role", cell: (offer) => (offer.buyer.id === agentId ? "buyer" : "seller") },
                {
                  header: "With",
                  cell: (offer) => {
                    const other = offer.buyer.id === agentId ? offer.seller : offer.buyer;
                    return <Link href={`/agents/${other.id}`}>{other.name}</Link>;
                  },
                },
                { header: "Price", cell: (offer) => <Usdc wei={offer.price_wei} /> },
                { header: "Listed at", cell: (offer) => <Usdc wei={offer.listing_price_wei} /> },
                {
                  header: "Status",
                  cell: (offer) =>
                    offer.turn === null
                      ? offer.status
                      : `${offer.status} (${offer.turn === (offer.buyer.id === agentId ? "buyer" : "seller") ? "your turn" : "their turn"})`,
                },
                { header: "Updated", cell: (offer) => <Time iso={offer.updated_at} /> },
              ]}
            />
          )
        }
      </Loaded>
    </section>
  );
}
