import { describe, expect, it } from "vitest";
import { mergeTimeline, wallClockOf } from "./timeline-order.ts";

const HOUR = 3_600_000;

describe("wallClockOf", () => {
  it("takes the moment the marketplace knew, else the block time shifted by the nearest known gap", () => {
    // The chain's clock runs an hour ahead; the third event was sent by someone else.
    expect(
      wallClockOf([
        { blockMs: HOUR + 1_000, knownMs: 900 },
        { blockMs: HOUR + 5_000, knownMs: 4_800 },
        { blockMs: HOUR + 9_000 },
      ]),
    ).toEqual([900, 4_800, 8_800]);
  });

  it("before any known moment, shifts by the first gap known after; with none, keeps the block times", () => {
    expect(wallClockOf([{ blockMs: HOUR + 1_000 }, { blockMs: HOUR + 5_000, knownMs: 5_000 }])).toEqual([1_000, 5_000]);
    expect(wallClockOf([{ blockMs: 1_000 }, { blockMs: 2_000 }])).toEqual([1_000, 2_000]);
  });

  it("never goes back: chain order is the order things happened", () => {
    // Proof handed in late for the first event, the second relayed at once.
    expect(
      wallClockOf([
        { blockMs: 1_000, knownMs: 60_000 },
        { blockMs: 2_000, knownMs: 3_000 },
      ]),
    ).toEqual([60_000, 60_000]);
  });
});

describe("mergeTimeline", () => {
  const chain = (kind: string, blockMs: number, knownMs?: number) => ({
    kind,
    blockMs,
    ...(knownMs !== undefined && { knownMs }),
  });
  const api = (kind: string, atMs: number) => ({ kind, atMs });

  it("keeps the chain's order and puts each marketplace event before the first chain event at or after it", () => {
    const merged = mergeTimeline(
      [chain("FUNDED", HOUR + 1_000, 100), chain("DELIVERED", HOUR + 2_000, 2_000), chain("DISPUTED", HOUR + 3_000)],
      [api("EVIDENCE", 3_500), api("CREATED", 100), api("DELIVERABLE_SUBMITTED", 2_000)],
    );
    expect(merged.map((event) => event.kind)).toEqual([
      "CREATED",
      "FUNDED",
      "DELIVERABLE_SUBMITTED",
      "DELIVERED",
      "DISPUTED",
      "EVIDENCE",
    ]);
  });

  it("lists marketplace events after the last chain event when they come later, and alone when there is no chain event", () => {
    expect(mergeTimeline([chain("FUNDED", 1_000, 1_000)], [api("EVIDENCE", 9_000)]).map((e) => e.kind)).toEqual([
      "FUNDED",
      "EVIDENCE",
    ]);
    expect(mergeTimeline([], [api("B", 2), api("A", 1)]).map((e) => e.kind)).toEqual(["A", "B"]);
  });
});
