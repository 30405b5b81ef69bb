import type { GetTimelineReturnType, TransactionState } from "@agent-marketplace/sdk";

/*
 * A transaction in people's words: its state (a ruling named as what it did: a split, or all to
 * one side), and the events of its timeline (who acted, by name or role, and what moved, in USDC).
 * The API's codes, ids, addresses and hashes stay out of the words; the page shows the raw ones
 * only inside a "details" disclosure.
 */

type TimelineEvent = GetTimelineReturnType["events"][number];

/** No one: the seller of a bounty funded before it had one. Never shown. */
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** "60 %" for 6000 basis points, "62.5 %" for 6250. */
export function formatShare(bps: number): string {
  return `${Number((bps / 100).toFixed(2))} %`;
}

/** What the arbiter's ruling did, by the seller's share. */
export function rulingWords(sellerBps: number): string {
  if (sellerBps >= 10_000) return "Released by the arbiter: all to the seller";
  if (sellerBps <= 0) return "Refunded by the arbiter: all back to the buyer";
  return `Split: ${formatShare(sellerBps)} to the seller`;
}

const STATE_WORDS: Record<TransactionState, string> = {
  PENDING: "Waiting for payment",
  FUNDED: "Funded",
  DELIVERED: "Delivered",
  DISPUTED: "Disputed",
  RELEASED: "Released",
  REFUNDED: "Refunded",
};

/** A transaction's state as people say it: a ruled one by its ruling, never "RESOLVED" or "RELEASED". */
export function stateWords(transaction: {
  state: TransactionState;
  resolution?: { seller_bps: number } | null;
}): string {
  if (transaction.resolution) return rulingWords(transaction.resolution.seller_bps);
  return STATE_WORDS[transaction.state];
}

const EVENT_TITLES: Record<string, string> = {
  CREATED: "Transaction created",
  FUNDED: "Paid into escrow",
  SELLER_ASSIGNED: "Seller assigned",
  DELIVERED: "Delivery recorded on chain",
  DELIVERABLE_SUBMITTED: "Work handed in",
  DISPUTED: "Dispute raised",
  EVIDENCE: "Evidence added",
  RELEASED: "Payment released to the seller",
  REFUNDED: "Refunded to the buyer",
  RESOLVED: "Ruled by the arbiter",
  CREDITED: "Held for collection (the transfer did not go through)",
  CREDIT_WITHDRAWN: "Collected",
};

/** An event's title: "Paid into escrow" for FUNDED; an unknown kind in sentence case. */
export function eventTitle(event: Pick<TimelineEvent, "kind" | "details">): string {
  const share = event.details.seller_bps;
  if (event.kind === "RESOLVED" && typeof share === "number") {
    if (share >= 10_000) return "Ruled by the arbiter: all to the seller";
    if (share <= 0) return "Ruled by the arbiter: all back to the buyer";
    return `Split by the arbiter: ${formatShare(share)} to the seller`;
  }
  const known = EVENT_TITLES[event.kind];
  if (known) return known;
  const words = event.kind.toLowerCase().replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Who acted: "report-buyer (the buyer)", "the arbiter", "the marketplace"; undefined when nobody is named. */
export function actorWords(event: Pick<TimelineEvent, "actor" | "actor_role" | "actor_name">): string | undefined {
  switch (event.actor_role) {
    case "buyer":
    case "seller":
      return event.actor_name ? `${event.actor_name} (the ${event.actor_role})` : `the ${event.actor_role}`;
    case "arbiter":
      return "the arbiter";
    case "marketplace":
      return "the marketplace";
    default:
      // An address the marketplace does not know: named in the details only.
      return event.actor ? "another account" : undefined;
  }
}

/** A fact people read: an amount, a share or words (a link when `href`). */
export interface EventFact {
  label: string;
  wei?: string;
  text?: string;
  href?: string;
}

/** What an event's details say: the facts people read, and the raw values for the "details" disclosure. */
export interface EventFacts {
  shown: EventFact[];
  raw: { label: string; value: string }[];
}

/** What an event's amount is, by its kind. */
const AMOUNT_LABELS: Record<string, string> = {
  CREATED: "Price",
  FUNDED: "In escrow",
  RELEASED: "To the seller",
  REFUNDED: "Back to the buyer",
  RESOLVED: "To the seller",
  CREDITED: "Held",
  CREDIT_WITHDRAWN: "Collected",
};

const RAW_LABELS: Record<string, string> = {
  seller: "Seller's address",
  data_hash: "Hash",
  deliverable_hash: "Hash of the work",
};

const isWeb = (value: string) => /^https?:\/\//i.test(value);

/** An event's facts in people's words; ids are left out, addresses and hashes kept for the disclosure. */
export function eventFacts(event: TimelineEvent): EventFacts {
  const shown: EventFact[] = [];
  const raw: EventFacts["raw"] = [];
  const details = event.details;
  for (const [key, value] of Object.entries(details)) {
    const text = String(value);
    switch (key) {
      case "amount_wei":
        shown.push({ label: AMOUNT_LABELS[event.kind] ?? "Amount", wei: text });
        break;
      case "buyer_amount_wei":
        // A refund's amount is already "back to the buyer".
        if (event.kind !== "REFUNDED") shown.push({ label: "Back to the buyer", wei: text });
        break;
      case "fee_wei":
        shown.push({ label: "Platform fee", wei: text });
        break;
      case "seller_bps":
        shown.push({ label: "Seller's share", text: formatShare(Number(value)) });
        break;
      case "content":
        shown.push({ label: "Said", text });
        break;
      case "url":
      case "deliverable_url":
        shown.push({ label: "Link", text, ...(isWeb(text) && { href: text }) });
        break;
      case "evidence_id":
        break;
      case "data_hash":
        raw.push({ label: event.kind === "DISPUTED" ? "Hash of the reason" : "Hash of the work", value: text });
        break;
      default:
        // The zero address is no one (a bounty funded before it had a seller): never shown.
        if (text.toLowerCase() !== ZERO_ADDRESS)
          raw.push({ label: RAW_LABELS[key] ?? key.replaceAll("_", " "), value: text });
    }
  }
  if (event.actor && event.source === "chain") raw.push({ label: "Sent by the address", value: event.actor });
  if (event.tx_hash) raw.push({ label: "Chain transaction", value: event.tx_hash });
  if (event.block_number) raw.push({ label: "Block", value: event.block_number });
  return { shown, raw };
}
