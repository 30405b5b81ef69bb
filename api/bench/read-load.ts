/**
 * The load of the read benchmarks: autocannon with CONNECTIONS connections, each sending its next
 * request as soon as its last is answered, every request drawn by a {@link Draw} (its own path and
 * headers, and what to keep from the answer, per connection). autocannon parses responses with
 * little CPU of its own, which matters when it shares the machine with what it measures.
 */
import autocannon from "autocannon";

export interface ReadFigures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  /** Non-2xx answers, connection errors and timeouts. */
  errors: number;
}

/** One connection's next request: its path, its headers, and what to keep from the answer. */
export interface DrawnRequest {
  path: string;
  headers?: Record<string, string>;
  keep?: (body: string) => void;
}

/**
 * Draws the next request of a connection; `connection` is an object of that connection's own (the
 * same for each of its requests), for state such as the cursor of the page it is on.
 */
export type Draw = (connection: Record<string, unknown>) => DrawnRequest;

export interface LoadOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

function run(url: string, draw: Draw, connections: number, seconds: number) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "GET",
        setupRequest(request, context) {
          const drawn = draw(context as Record<string, unknown>);
          (context as { keep?: DrawnRequest["keep"] }).keep = drawn.keep;
          return { ...request, path: drawn.path, headers: { ...request.headers, ...drawn.headers } };
        },
        onResponse(status, body, context) {
          const keep = (context as { keep?: DrawnRequest["keep"] }).keep;
          if (keep && status === 200) keep(body);
        },
      },
    ],
  });
}

/** Requests per second and latency of `draw`'s requests to `baseUrl`, after a warm-up at the same load. */
export async function measureReads(name: string, baseUrl: string, draw: Draw, options: LoadOptions) {
  await run(baseUrl, draw, options.connections, options.warmupSeconds);
  const result = await run(baseUrl, draw, options.connections, options.seconds);
  const figures: ReadFigures = {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
  console.log(
    `${name.padEnd(58)} ${Math.round(figures.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s  p50 ${String(figures.p50).padStart(3)} ms  p90 ${String(figures.p90).padStart(3)} ms  p99 ${String(figures.p99).padStart(3)} ms${figures.errors ? `  ${figures.errors} errors` : ""}`,
  );
  return figures;
}

/** A fixed request: the repeated-query rows. */
export function same(path: string, headers?: Record<string, string>): Draw {
  return () => ({ path, headers });
}
