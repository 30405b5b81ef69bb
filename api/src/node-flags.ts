/**
 * The Node.js flags an API process runs with (`pnpm start`'s runner, which hosts the one-process
 * API and whose flags the cluster's processes inherit; the benchmarks).
 *
 * V8's heap is capped at API_HEAP_LIMIT_MIB. With Node's default cap (a share of the machine's
 * memory) V8 let the heap grow far beyond what it held: on the read benchmark (100,000 listings, 50
 * connections) the API reached 340-370 MiB resident around ~50 MB of live objects; capped at 256 MiB
 * it stayed at ~220 MiB with the same throughput (collections start earlier, not more often under
 * that load). An operator's own `--max-old-space-size` in NODE_OPTIONS wins.
 */
export const API_HEAP_LIMIT_MIB = 256;

const HEAP_FLAG = "--max-old-space-size";

/** The flags to start an API process with, given the NODE_OPTIONS and flags it would get already. */
export function apiNodeFlags(nodeOptions = process.env.NODE_OPTIONS ?? "", execArgv = process.execArgv): string[] {
  const given = [nodeOptions, ...execArgv].some((flags) => flags.includes(HEAP_FLAG));
  return given ? [] : [`${HEAP_FLAG}=${API_HEAP_LIMIT_MIB}`];
}
