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
 * same throughput, room the listing index (domain/reads/listing-index.ts) takes.
 *
 * V8's allocation-site pretenuring is off (--no-allocation-site-pretenuring). Pretenuring makes an
 * allocation site whose objects mostly survived allocate the next ones in the old generation. While
 * the listing index loads (domain/reads/listing-index-sync.ts), every row node-postgres parses is kept
 * (--trace-pretenuring-statistics: sites with 1,000 of 1,000 objects surviving, a load batch's
 * rows, are tenured), and stay so: after that, each query's rows were old objects pointing at young
 * strings (a 7 KB profile body, a card), and the young generation's collections had to keep and
 * promote those strings until the next full collection, which came far more often. Measured on
 * the read benchmark's data (100,000 listings, 50 connections): a bare route reading one profile
 * body in the API process gave p99 16 ms with 24 full collections in 8 s, and p99 6 ms with one
 * once pretenuring was off; profiles went from 8,000 to 10,900 req/s (p99 26 to 9 ms), /me from
 * 5,700 to 6,600 (p99 33 to 12), and the API's CPU per profile from 0.15 to 0.07 ms.
 *
 * Not set: --heap-growing-percent=25 (the old generation grows by a quarter between full
 * collections, where V8 lets it grow by 10-300 %) lowered the read benchmark's peak from 303 to 290
 * MiB, but the money flows' buys fell from 51.9 to 32.7 a second: their API's heap is small and
 * busy, and was collected far more often.
 *
 * An operator's own setting of any of them, in NODE_OPTIONS or the process's flags, wins (V8 does
 * not take the pretenuring flag from NODE_OPTIONS: give it as a flag).
 */
export const API_HEAP_LIMIT_MIB = 256;
export const API_SEMI_SPACE_MIB = 8;

/** Each flag, and the name by which an operator's own setting of it (either way) is found. */
const FLAGS: Array<{ name: string; flag: string }> = [
  { name: "--max-old-space-size", flag: `--max-old-space-size=${API_HEAP_LIMIT_MIB}` },
  { name: "--max-semi-space-size", flag: `--max-semi-space-size=${API_SEMI_SPACE_MIB}` },
  { name: "allocation-site-pretenuring", flag: "--no-allocation-site-pretenuring" },
];

/** The flags to start an API process with, given the NODE_OPTIONS and flags it would get already. */
export function apiNodeFlags(nodeOptions = process.env.NODE_OPTIONS ?? "", execArgv = process.execArgv): string[] {
  const given = (name: string) => [nodeOptions, ...execArgv].some((flags) => flags.includes(name));
  return FLAGS.filter(({ name }) => !given(name)).map(({ flag }) => flag);
}
