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
 * After each full collection V8 lets the old generation grow by API_HEAP_GROWING_PERCENT before the
 * next (by default it lets it grow by 10 to 300 %, more the faster it collected): the listing index
 * and the kept plans are ~110 MiB that every request's survivors are added to. On the read
 * benchmark's dev stack (varied browse, /me, details and profiles at 50 connections) the API's peak
 * was 290 MiB against 303 with the same throughput; at 15 % the collections began to cost /me and
 * profiles 10-15 % of their throughput.
 *
 * An operator's own flag of any of these kinds in NODE_OPTIONS wins.
 */
export const API_HEAP_LIMIT_MIB = 256;
export const API_SEMI_SPACE_MIB = 8;
export const API_HEAP_GROWING_PERCENT = 25;

const FLAGS: Array<[flag: string, value: number]> = [
  ["--max-old-space-size", API_HEAP_LIMIT_MIB],
  ["--max-semi-space-size", API_SEMI_SPACE_MIB],
  ["--heap-growing-percent", API_HEAP_GROWING_PERCENT],
];

/** The flags to start an API process with, given the NODE_OPTIONS and flags it would get already. */
export function apiNodeFlags(nodeOptions = process.env.NODE_OPTIONS ?? "", execArgv = process.execArgv): string[] {
  const given = (flag: string) => [nodeOptions, ...execArgv].some((flags) => flags.includes(flag));
  return FLAGS.filter(([flag]) => !given(flag)).map(([flag, value]) => `${flag}=${value}`);
}
