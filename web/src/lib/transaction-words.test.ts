import type { GetTimelineReturnType } from "@agent-marketplace/sdk";
import { describe, expect, test } from "vitest";
import { actorWords, eventFacts, eventTitle, formatShare, rulingWords, stateWords } from "./transaction-words.ts";

type TimelineEvent = GetTimelineReturnType["events"][number];

const event = (fields: Partial<TimelineEvent>): TimelineEvent => ({
  at: "2030-01-01T12:00:00.000Z",
  source: "chain",
  kind: "FUNDED",
  actor: null,
  actor_role: null,
  actor_name: null,
  tx_hash: null,
  block_number: null,
  details: {},
  ...fields,
});

describe("stateWords", () => {
  test("says each state plainly", () => {
    expect(stateWords({ state: "FUNDED" })).toBe("Funded");
    expect(stateWords({ state: "DELIVERED", resolution: null })).toBe("Delivered");
    expect(stateWords({ state: "RELEASED", resolution: null })).toBe("Released");
    expect(stateWords({ state: "PENDING" })).toBe("Waiting for payment");
  });
  test("names a ruling by what it did: a split is a split, never RELEASED", () => {
    expect(stateWords({ state: "RELEASED", resolution: { seller_bps: 6_000 } })).toBe("Split: 60 % to the seller");
    expect(stateWords({ state: "RELEASED", resolution: { seller_bps: 10_000 } })).toBe(
      "Released by the arbiter: all to the seller",
    );
    expect(stateWords({ state: "REFUNDED", resolution: { seller_bps: 0 } })).toBe(
      "Refunded by the arbiter: all back to the buyer",
    );
  });
});

describe("formatShare and rulingWords", () => {
  test("basis points as a percentage", () => {
    expect(formatShare(6_000)).toBe("60 %");
    expect(formatShare(6_250)).toBe("62.5 %");
    expect(rulingWords(1)).toBe("Split: 0.01 % to the seller");
  });
});

describe("timeline events in people's words", () => {
  test("a party by name and role, the arbiter and the marketplace by role, an unknown address as another account", () => {
    expect(actorWords(event({ actor_role: "buyer", actor_name: "report-buyer", actor: "0xabc" }))).toBe(
      "report-buyer (the buyer)",
    );
    expect(actorWords(event({ actor_role: "seller", actor_name: null, actor: "0xabc" }))).toBe("the seller");
    expect(actorWords(event({ actor_role: "arbiter", actor: "0xabc" }))).toBe("the arbiter");
    expect(actorWords(event({ actor_role: "marketplace", actor: "0xabc" }))).toBe("the marketplace");
    expect(actorWords(event({ actor_role: null, actor: "0xabc" }))).toBe("another account");
    expect(actorWords(event({ actor_role: null, actor: null }))).toBeUndefined();
  });

  test("titles: plain words, a ruling named by its split", () => {
    expect(eventTitle(event({ kind: "FUNDED" }))).toBe("Paid into escrow");
    expect(eventTitle(event({ kind: "RESOLVED", details: { seller_bps: 6_000 } }))).toBe(
      "Split by the arbiter: 60 % to the seller",
    );
    expect(eventTitle(event({ kind: "SOMETHING_NEW" }))).toBe("Something new");
  });

  test("amounts as USDC facts, no ids, the zero address nowhere, hashes and addresses only for the disclosure", () => {
    const facts = eventFacts(
      event({
        kind: "FUNDED",
        actor: "0x1111111111111111111111111111111111111111",
        tx_hash: `0x${"ab".repeat(32)}`,
        block_number: "42",
        details: { amount_wei: "8500000", seller: "0x0000000000000000000000000000000000000000" },
      }),
    );
    expect(facts.shown).toEqual([{ label: "In escrow", wei: "8500000" }]);
    expect(facts.raw.map((item) => item.value)).toEqual([
      "0x1111111111111111111111111111111111111111",
      `0x${"ab".repeat(32)}`,
      "42",
    ]);
    const evidence = eventFacts(
      event({
        source: "api",
        kind: "EVIDENCE",
        details: {
          evidence_id: "b37fbf53-0000-4000-8000-000000000000",
          content: "Page 2 is missing",
          url: "https://x.example/a",
        },
      }),
    );
    expect(evidence.shown).toEqual([
      { label: "Said", text: "Page 2 is missing" },
      { label: "Link", text: "https://x.example/a", href: "https://x.example/a" },
    ]);
    expect(JSON.stringify(evidence), "no id").not.toContain("b37fbf53");
    const ruled = eventFacts(
      event({
        kind: "RESOLVED",
        details: { amount_wei: "5940000", buyer_amount_wei: "4000000", fee_wei: "60000", seller_bps: 6000 },
      }),
    );
    expect(ruled.shown).toEqual([
      { label: "To the seller", wei: "5940000" },
      { label: "Back to the buyer", wei: "4000000" },
      { label: "Platform fee", wei: "60000" },
      { label: "Seller's share", text: "60 %" },
    ]);
  });
});
