import type { ListingState } from "@agent-marketplace/sdk";

/** A listing's state in words, as a sentence ends ("It is … ."). */
export const LISTING_STATE_TEXT: Record<ListingState, string> = {
  active: "on the market",
  paused: "paused by its seller",
  awaiting_funding: "waiting for its reward to be funded",
  closed: "closed for good",
};

/**
 * How the offers and proposals of an open listing page stay current: read again every 3 s while
 * the page is visible (a counter-offer shows without a reload), never in a hidden tab.
 */
export const OFFERS_POLL = { refetchInterval: 3_000, refetchIntervalInBackground: false } as const;
