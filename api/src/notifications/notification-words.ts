import { formatUsdc } from "../domain/shared/money.ts";

/*
 * A notification in words, for people and for clients of the live service (which read `title` and
 * `message`): a short title per kind and one sentence from its payload. The payload stays the
 * source of truth; these are read from it and never stored.
 */

type Payload = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined;

/** The name of the agent a payload names under `key` (`{ id, name }`), if it has one. */
function nameOf(payload: Payload, key: string): string | undefined {
  const agent = payload[key];
  return agent && typeof agent === "object" ? text((agent as { name?: unknown }).name) : undefined;
}

/** `"<title>"` of the listing the payload names, or `fallback`. */
function listing(payload: Payload, fallback = "your listing"): string {
  const title = text(payload.listing_title);
  return title ? `"${title}"` : fallback;
}

/** An amount of the payload (wei) in USDC, with two decimals. */
function usdc(payload: Payload, key: string): string | undefined {
  const wei = payload[key];
  if (typeof wei !== "string" && typeof wei !== "number") return undefined;
  try {
    return `${formatUsdc(BigInt(wei))} USDC`;
  } catch {
    return undefined;
  }
}

const counterparty = (payload: Payload, fallback: string) => nameOf(payload, "counterparty") ?? fallback;
const from = (payload: Payload, fallback = "An agent") => nameOf(payload, "from") ?? fallback;

/** Each kind's title and sentence. */
const WORDS: Readonly<Record<string, { title: string; message: (payload: Payload) => string }>> = {
  "payment.funded": {
    title: "Payment in escrow",
    message: (p) =>
      `${usdc(p, "amount_wei") ?? "The payment"} for ${listing(p, "the transaction")} is held in escrow until the work is delivered and released.`,
  },
  "listing.purchased": {
    title: "Listing purchased",
    message: (p) =>
      `${counterparty(p, "A buyer")} bought ${listing(p)} for ${usdc(p, "amount_wei") ?? "its price"}: deliver before the deadline.`,
  },
  "listing.claimed": {
    title: "Bounty claimed",
    message: (p) => `${counterparty(p, "An agent")} claimed ${listing(p, "your bounty")} and is working on it.`,
  },
  "transaction.delivered": {
    title: "Work delivered",
    message: (p) =>
      `${counterparty(p, "The seller")} delivered ${listing(p, "the work")}: review it, then release the payment or dispute.`,
  },
  "payment.released": {
    title: "Payment released",
    message: (p) =>
      text(p.message) ?? `The payment of ${usdc(p, "amount_wei") ?? "the transaction"} was released to the seller.`,
  },
  "payment.refunded": {
    title: "Payment refunded",
    message: (p) =>
      `The payment of ${usdc(p, "amount_wei") ?? "the transaction"} for ${listing(p, "the transaction")} was refunded to the buyer.`,
  },
  "transaction.disputed": {
    title: "Transaction disputed",
    message: (p) =>
      `${counterparty(p, "The other party")} disputed ${listing(p, "the transaction")}${text(p.reason) ? `: ${text(p.reason)}` : ""}. Add your evidence while it is open.`,
  },
  "transaction.resolved": {
    title: "Dispute resolved",
    message: (p) =>
      `The arbiter ruled on ${listing(p, "the disputed transaction")}${typeof p.seller_bps === "number" ? `: ${p.seller_bps / 100}% to the seller` : ""}.`,
  },
  "review.received": {
    title: "New review",
    message: (p) => `${nameOf(p, "reviewer") ?? "An agent"} rated you ${String(p.rating ?? "?")} out of 5.`,
  },
  "message.received": {
    title: "New message",
    message: (p) => `${from(p)} wrote to you${text(p.preview) ? `: ${text(p.preview)}` : "."}`,
  },
  "wallet.withdrawal": {
    title: "Withdrawal sent",
    message: (p) =>
      `${text(p.amount_usdc) ? `${text(p.amount_usdc)} USDC` : (usdc(p, "amount_wei") ?? "USDC")} was sent from your wallet to ${text(p.destination_address) ?? "another address"}.`,
  },
  "offer.received": {
    title: "New offer",
    message: (p) => `${from(p)} offered ${usdc(p, "price_wei") ?? "a price"} for ${listing(p)}.`,
  },
  "offer.countered": {
    title: "Offer countered",
    message: (p) =>
      `${from(p, "The other party")} countered with ${usdc(p, "price_wei") ?? "a price"} for ${listing(p, "the listing")}.`,
  },
  "offer.accepted": {
    title: "Offer accepted",
    message: (p) =>
      `${from(p, "The other party")} accepted ${usdc(p, "price_wei") ?? "the price"} for ${listing(p, "the listing")}.`,
  },
  "offer.declined": {
    title: "Offer declined",
    message: (p) => `${from(p, "The other party")} declined the offer for ${listing(p, "the listing")}.`,
  },
  "offer.withdrawn": {
    title: "Offer withdrawn",
    message: (p) => `${from(p, "The buyer")} withdrew the offer for ${listing(p)}.`,
  },
  "offer.expired": {
    title: "Offer expired",
    message: (p) => `The offer of ${usdc(p, "price_wei") ?? "a price"} for ${listing(p, "the listing")} expired.`,
  },
  "proposal.received": {
    title: "New proposal",
    message: (p) => `${from(p)} sent a proposal for your bounty ${listing(p, "")}`.trimEnd().concat("."),
  },
  "proposal.accepted": {
    title: "Proposal accepted",
    message: (p) => `Your proposal for ${listing(p, "the bounty")} was accepted: deliver before the deadline.`,
  },
  "proposal.declined": {
    title: "Proposal declined",
    message: (p) => `Your proposal for ${listing(p, "the bounty")} was declined.`,
  },
  "proposal.withdrawn": {
    title: "Proposal withdrawn",
    message: (p) => `${from(p)} withdrew a proposal for your bounty ${listing(p, "")}`.trimEnd().concat("."),
  },
  "bounty.matching": {
    title: "New bounty for you",
    message: (p) =>
      `A bounty matching your skills was posted: ${text(p.title) ? `"${text(p.title)}"` : "a new bounty"}${usdc(p, "price_wei") ? ` for ${usdc(p, "price_wei")}` : ""}.`,
  },
  "approval.requested": {
    title: "Approval requested",
    message: (p) =>
      `Spending ${usdc(p, "amount_wei") ?? "USDC"}${text(p.summary) ? ` (${text(p.summary)})` : ""} is above the approval threshold: it waits for the owner to approve or decline it.`,
  },
  "approval.approved": {
    title: "Spending approved",
    message: (p) =>
      `The owner approved ${usdc(p, "amount_wei") ?? "the move"}${text(p.summary) ? ` (${text(p.summary)})` : ""}: it was carried out.`,
  },
  "approval.declined": {
    title: "Spending declined",
    message: (p) =>
      `The owner declined ${usdc(p, "amount_wei") ?? "the move"}${text(p.summary) ? ` (${text(p.summary)})` : ""}: nothing was sent.`,
  },
  "approval.failed": {
    title: "Approved spending failed",
    message: (p) =>
      `The owner approved ${usdc(p, "amount_wei") ?? "the move"}${text(p.summary) ? ` (${text(p.summary)})` : ""}, but it could not be carried out${text(p.error) ? `: ${text(p.error)}` : ""}.`,
  },
  "webhook.paused": {
    title: "Webhook paused",
    message: (p) =>
      `Deliveries to ${text(p.url) ?? "your webhook"} are paused after ${String(p.consecutive_failures ?? "several")} failures in a row: set webhook_url again or send a test delivery to resume.`,
  },
};

/** A notification's title and sentence (a kind without words of its own gets generic ones). */
export function notificationWords(kind: string, payload: Payload): { title: string; message: string } {
  const words = WORDS[kind];
  if (!words) return { title: kind, message: `Notification ${kind}.` };
  return { title: words.title, message: words.message(payload) };
}
