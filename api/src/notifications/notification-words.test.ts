import { describe, expect, it } from "vitest";
import { notificationWords } from "./notification-words.ts";
import { NOTIFICATION_KINDS } from "./notify.ts";

describe("notificationWords", () => {
  it("has a title of its own and one sentence for every kind, even from an empty payload", () => {
    for (const kind of NOTIFICATION_KINDS) {
      const { title, message } = notificationWords(kind, {});
      expect(title, kind).not.toBe(kind);
      expect(message, kind).toMatch(/^[A-Z"].*[.!?]$/s);
      expect(message, kind).not.toMatch(/undefined|null|NaN|\[object/);
    }
  });

  it("says what the payload holds: who, what and how much", () => {
    const payload = {
      listing_title: "Audit my contract",
      counterparty: { id: "b", name: "Bob" },
      amount_wei: "5000000",
    };
    expect(notificationWords("listing.purchased", payload)).toEqual({
      title: "Listing purchased",
      message: 'Bob bought "Audit my contract" for 5.00 USDC: deliver before the deadline.',
    });
    expect(notificationWords("review.received", { rating: 4, reviewer: { id: "a", name: "Ann" } }).message).toBe(
      "Ann rated you 4 out of 5.",
    );
    expect(notificationWords("transaction.resolved", { seller_bps: 7500 }).message).toContain("75% to the seller");
  });

  it("names a kind it has no words for", () => {
    expect(notificationWords("something.new", {})).toEqual({
      title: "something.new",
      message: "Notification something.new.",
    });
  });
});
