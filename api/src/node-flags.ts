/**
 * The Node.js flags an API process runs with (`pnpm start`'s runner, which hosts the one-process
 * API and whose flags the cluster's processes inherit; the benchmarks).
 *
 * V8's heap is capped at API_HEAP_LIMIT_MIB. With Node's default cap (a share of the machine's
 * memory) V8 let the heap grow far beyond what it held: on the read benchmark (100,000 listings, 50
 * connections) the API reached 340-370 MiB resident around ~50 MB of live objects; capped at 256 MiB
 * it stayed at ~220 MiB with the same throughput (collections start earlier, not more often under
 * that load).
 *
 * The young generation's semi-spaces are API_SEMI_SPACE_MIB each (Node's default is 16): requests
 * allocate short-lived objects only, and the smaller young generation is 27 MiB less resident
 * (179 against 209 MiB idle, 202 against 229 at peak under details and profiles at load) with the
 * same throughput, room the listing index (domain/listing-index.ts) takes.
 *
 * Not set: --heap-growing-percent=25 (the old generation grows by a quarter between full
 * collections, where V8 lets it grow by 10-300 %) lowered the read benchmark's peak from 303 to 290
 * MiB, but the money flows' buys fell from 51.9 to 32.7 a second: their API's heap is small and
 * busy, and was collected far more often.
 *
 * An operator's own flag of either kind in NODE_OPTIONS wins.
 */
export const API_HEAP_LIMIT_MIB = 256;
export const API_SEMI_SPACE_MIB = 8;

const FLAGS: Array<[flag: string, mib: number]> = [
  ["--max-old-space-size", API_HEAP_LIMIT_MIB],
  ["--max-semi-space-size", API_SEMI_SPACE_MIB],
];

/** The flags to start an API process with, given the NODE_OPTIONS and flags it would get already. */
export function apiNodeFlags(nodeOptions = process.env.NODE_OPTIONS ?? "", execArgv = process.execArgv): string[] {
  const given = (flag: string) => [nodeOptions, ...execArgv].some((flags) => flags.includes(flag));
  return FLAGS.filter(([flag]) => !given(flag)).map(([flag, mib]) => `${flag}=${mib}`);
}
