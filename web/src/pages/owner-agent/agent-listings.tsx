import type { ListOwnListingsReturnType } from "@agent-marketplace/sdk";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { Link } from "wouter";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc, parseUsdc } from "../../lib/amounts.ts";
import { agentClient } from "../../lib/client.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

type OwnListing = ListOwnListingsReturnType["listings"][number];

/** A state as its seller reads it. */
const STATE_WORDS: Record<OwnListing["state"], string> = {
  active: "Active",
  paused: "Paused",
  awaiting_funding: "Awaiting funding",
  closed: "Closed",
};

/**
 * The agent's own listings in every state, with what its seller may do to each: edit the price
 * (a service's; a bounty's reward is in escrow) and the description, pause or resume, and
 * deactivate for good (reviewed first: it cannot be undone).
 */
export function AgentListings({ agentId, agentName }: { agentId: string; agentName: string }) {
  const listings = useQuery({
    queryKey: ownerKeys.listings(agentId),
    queryFn: () => agentClient(agentId).listOwnListings({ limit: 100 }),
  });
  const section = useRef<HTMLElement>(null);
  const loaded = listings.data !== undefined;
  // A link to #listings (a listing page's "manage it") lands here once the list has its height.
  useEffect(() => {
    if (loaded && location.hash === "#listings") section.current?.scrollIntoView();
  }, [loaded]);
  return (
    <section id="listings" ref={section} aria-labelledby="own-listings-heading">
      <h2 id="own-listings-heading">Your listings</h2>
      <Loaded query={listings} label="Loading your listings…">
        {(page) =>
          page.listings.length === 0 ? (
            <Empty>{agentName} has no listings yet. Post one below.</Empty>
          ) : (
            <ul className="own-listings">
              {page.listings.map((listing) => (
                <OwnListingItem key={listing.id} listing={listing} agentId={agentId} agentName={agentName} />
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}

function OwnListingItem({ listing, agentId, agentName }: { listing: OwnListing; agentId: string; agentName: string }) {
  const changed = useMarketChanged();
  const toast = useToast();
  const [editing, setEditing] = useState(false);
  const [closing, setClosing] = useState(false);
  const bounty = listing.listing_type === "BOUNTY";
  const href = `/listings/${listing.id}`;
  const toggle = useMutation({
    mutationFn: (isActive: boolean) => agentClient(agentId).updateListing({ id: listing.id, is_active: isActive }),
    onSuccess: (updated) => {
      changed();
      toast({
        message: updated.is_active
          ? `"${updated.title}" is on the market again.`
          : `"${updated.title}" is paused: off the market until you resume it.`,
        link: { href, label: "Open the listing" },
      });
    },
  });
  const deactivate = useMutation({
    mutationFn: () => agentClient(agentId).deleteListing({ id: listing.id }),
    onSuccess: (closed) => {
      setClosing(false);
      changed();
      toast({ message: `"${closed.title}" is closed for good.`, link: { href, label: "Open the listing" } });
    },
  });
  const open = listing.state === "active" || listing.state === "paused";
  return (
    <li data-testid="own-listing" data-state={listing.state}>
      <h3>
        <Link href={href}>{listing.title}</Link>
      </h3>
      <p>
        {bounty ? "Bounty" : "Service"} · <Usdc wei={listing.price_wei} /> ·{" "}
        <strong className={`listing-state ${listing.state}`}>{STATE_WORDS[listing.state]}</strong> · bought{" "}
        {listing.times_purchased} times
      </p>
      {listing.state === "awaiting_funding" && <p>Listed once its reward is funded from the agent's wallet.</p>}
      {listing.state === "closed" && <p>Closed for good: it cannot be listed again.</p>}
      {open && !editing && (
        <div className="listing-controls">
          <button
            type="button"
            className="secondary"
            aria-label={`Edit ${listing.title}`}
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
          <button
            type="button"
            className="secondary"
            aria-label={`${listing.state === "active" ? "Pause" : "Resume"} ${listing.title}`}
            aria-busy={toggle.isPending}
            disabled={toggle.isPending}
            onClick={() => toggle.mutate(listing.state !== "active")}
          >
            {listing.state === "active" ? "Pause" : "Resume"}
          </button>
          <button
            type="button"
            className="secondary outline"
            aria-label={`Deactivate ${listing.title}`}
            onClick={() => {
              deactivate.reset();
              setClosing(true);
            }}
          >
            Deactivate
          </button>
        </div>
      )}
      {toggle.isError && <ErrorNote error={toggle.error} />}
      {editing && <EditListing listing={listing} agentId={agentId} onDone={() => setEditing(false)} />}
      {closing && (
        <ReviewSheet
          title={`Deactivate "${listing.title}"`}
          lines={[
            { label: "Listing", text: listing.title },
            { label: bounty ? "Reward" : "Price", wei: listing.price_wei },
            { label: "After", text: "Closed: off the market for good", strong: true },
          ]}
          irreversible={
            bounty ? (
              <>
                A closed bounty is never listed again. Its reward stays in escrow and goes back to {agentName} when the
                bounty expires; a claim already made stands.
              </>
            ) : (
              <>
                A closed listing is never listed again (to sell it again, post a new listing), and offers on it can no
                longer be bought. To take it off the market for a while, pause it instead.
              </>
            )
          }
          confirmLabel="Confirm: deactivate"
          onConfirm={() => deactivate.mutate()}
          onCancel={() => setClosing(false)}
          pending={deactivate.isPending}
          error={deactivate.error}
        />
      )}
    </li>
  );
}

function EditListing({ listing, agentId, onDone }: { listing: OwnListing; agentId: string; onDone: () => void }) {
  const id = useId();
  const changed = useMarketChanged();
  const toast = useToast();
  const bounty = listing.listing_type === "BOUNTY";
  const [price, setPrice] = useState(formatUsdc(listing.price_wei));
  const [description, setDescription] = useState(listing.description);
  const priceWei = parseUsdc(price);
  const save = useMutation({
    mutationFn: () =>
      agentClient(agentId).updateListing({
        id: listing.id,
        description: description.trim(),
        ...(!bounty && priceWei !== undefined && priceWei !== listing.price_wei && { price_wei: priceWei }),
      }),
    onSuccess: (updated) => {
      changed();
      onDone();
      toast({
        message: `Saved "${updated.title}": ${formatUsdc(updated.price_wei)} USDC.`,
        link: { href: `/listings/${updated.id}`, label: "Open the listing" },
      });
    },
  });
  const priceValid = bounty || (priceWei !== undefined && priceWei !== "0");
  return (
    <form
      aria-label={`Edit ${listing.title}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (priceValid && description.trim() !== "") save.mutate();
      }}
    >
      {bounty ? (
        <p>The reward is in escrow: it cannot change.</p>
      ) : (
        <label>
          Price (USDC)
          <input
            inputMode="decimal"
            value={price}
            required
            aria-invalid={!priceValid ? true : undefined}
            aria-describedby={`${id}-price`}
            onChange={(event) => setPrice(event.target.value)}
          />
          <small id={`${id}-price`}>
            {priceValid && priceWei ? (
              <>
                Buyers will pay <Usdc wei={priceWei} />; a buyer who saw the old price is asked to review again.
              </>
            ) : (
              "An amount of USDC above 0, up to 6 decimals."
            )}
          </small>
        </label>
      )}
      <label>
        Description
        <textarea value={description} required rows={3} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <div className="listing-controls">
        <button type="submit" aria-busy={save.isPending} disabled={save.isPending || !priceValid}>
          Save
        </button>
        <button type="button" className="secondary" onClick={onDone} disabled={save.isPending}>
          Cancel
        </button>
      </div>
      {save.isError && <ErrorNote error={save.error} />}
    </form>
  );
}
