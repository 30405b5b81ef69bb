/*
 * The one order of a transaction's timeline. On-chain events keep the chain's order (block, then
 * log index); the marketplace's own events (created, work submitted, evidence) are placed among
 * them by when they happened. Two clocks meet here: a block's timestamp is the chain's clock, which
 * may run ahead of the wall clock (a node's blocks need ever-increasing timestamps; a test chain's
 * time is moved forward), while the marketplace's events carry the wall clock. Comparing the two
 * listed evidence before the delivery it answered. So each chain event is put on the wall clock
 * first: the moment the marketplace sent its transaction (the relayer's outbox) or was handed its
 * hash as proof, when it knows one; else its block time, shifted by the gap between the clocks at
 * the nearest event whose moment is known.
 */

export interface ChainPlace {
  /** Unix milliseconds of its block. */
  blockMs: number;
  /** Unix milliseconds the marketplace sent its transaction, or was told of it; undefined when it never knew. */
  knownMs?: number;
}

/**
 * The wall-clock moment of each chain event (given in chain order), never earlier than the one
 * before it: chain order is the order things happened.
 */
export function wallClockOf(events: ChainPlace[]): number[] {
  const gapAt = events.map((event) => (event.knownMs === undefined ? undefined : event.knownMs - event.blockMs));
  const nearestGap = (index: number): number => {
    for (let i = index; i >= 0; i -= 1) {
      const gap = gapAt[i];
      if (gap !== undefined) return gap;
    }
    return gapAt.find((gap) => gap !== undefined) ?? 0;
  };
  let latest = Number.NEGATIVE_INFINITY;
  return events.map((event, index) => {
    latest = Math.max(latest, event.knownMs ?? event.blockMs + nearestGap(index));
    return latest;
  });
}

/**
 * One list: `chain` in its own order, each of `api` (any order; sorted here by `atMs`, ties kept
 * in the given order) before the first chain event that happened at the same moment or after it.
 * A record the marketplace writes with the move it sends (the transaction's row with its funding,
 * the delivered content with its delivery) carries the very moment of the sending: it comes first.
 */
export function mergeTimeline<C, A extends { atMs: number }>(chain: Array<C & ChainPlace>, api: A[]): Array<C | A> {
  const wall = wallClockOf(chain);
  const offChain = [...api].sort((a, b) => a.atMs - b.atMs);
  const merged: Array<C | A> = [];
  let next = 0;
  chain.forEach((event, index) => {
    while (next < offChain.length && (offChain[next] as A).atMs <= (wall[index] as number)) {
      merged.push(offChain[next] as A);
      next += 1;
    }
    merged.push(event);
  });
  merged.push(...offChain.slice(next));
  return merged;
}
