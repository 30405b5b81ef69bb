/**
 * The load of the read benchmarks: autocannon with CONNECTIONS connections, each sending its next
 * request as soon as its last is answered, every request drawn by a {@link Draw} (its own path and
 * headers, and what to keep from the answer, per connection). autocannon parses responses with
 * little CPU of its own, which matters when it shares the machine with what it measures.
 */
import http from "node:http";
import autocannon from "autocannon";

export interface ReadFigures {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  /** Non-2xx answers, connection errors and timeouts. */
  errors: number;
  /** Sent at this steady rate (measureAtRate), not as fast as answered: its req/s is no throughput. */
  steadyRate?: number;
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
  printFigures(figures);
  return figures;
}

/** One row of figures, as each measurement prints it when it ends. */
function printFigures(figures: ReadFigures) {
  const { name, requestsPerSecond, p50, p90, p99, errors } = figures;
  console.log(
    `${name.padEnd(58)} ${Math.round(requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s  p50 ${String(p50).padStart(3)} ms  p90 ${String(p90).padStart(3)} ms  p99 ${String(p99).padStart(3)} ms${errors ? `  ${errors} errors` : ""}`,
  );
}

/** A fixed request: the repeated-query rows. */
export function same(path: string, headers?: Record<string, string>): Draw {
  return () => ({ path, headers });
}

/**
 * Latency of `draw`'s requests sent at a steady `rate` a second, due at even intervals whatever
 * the answers before them did (an open loop: a slow answer does not hold the next request back), on
 * up to `connections` kept-alive connections; each is timed from when it was due, so time spent
 * waiting for a free connection counts. What users see when the service is busy but not saturated.
 * `draw` gets one of `connections` contexts in turn (a browsing person's cursor, say).
 */
export async function measureAtRate(
  name: string,
  baseUrl: string,
  draw: Draw,
  options: LoadOptions & { rate: number },
): Promise<ReadFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const contexts = Array.from({ length: options.connections }, () => ({}) as Record<string, unknown>);
  const send = (k: number, due: number) =>
    new Promise<{ ms: number; ok: boolean }>((resolve) => {
      const drawn = draw(contexts[k % contexts.length] as Record<string, unknown>);
      const request = http.get(`${baseUrl}${drawn.path}`, { agent, headers: drawn.headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const ok = response.statusCode === 200;
          if (ok) drawn.keep?.(Buffer.concat(chunks).toString("utf8"));
          resolve({ ms: performance.now() - due, ok });
        });
      });
      request.on("error", () => resolve({ ms: performance.now() - due, ok: false }));
    });
  /** Sends `seconds` of requests at the rate; answers every request's time and status. */
  async function run(seconds: number) {
    const started = performance.now();
    const total = Math.round(seconds * options.rate);
    const answers: Promise<{ ms: number; ok: boolean }>[] = [];
    while (answers.length < total) {
      const now = performance.now();
      // Every request due by now goes out now (timers wake about every millisecond).
      while (answers.length < total && started + (answers.length * 1000) / options.rate <= now) {
        answers.push(send(answers.length, started + (answers.length * 1000) / options.rate));
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { answers: await Promise.all(answers), elapsed: (performance.now() - started) / 1000 };
  }
  await run(options.warmupSeconds);
  const { answers, elapsed } = await run(options.seconds);
  agent.destroy();
  const times = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
  const figures: ReadFigures = {
    name,
    requestsPerSecond: answers.length / elapsed,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    errors: answers.filter((answer) => !answer.ok).length,
    steadyRate: options.rate,
  };
  printFigures(figures);
  return figures;
}
