/**
 * A fixed-duration load with one worker per connection: each worker sends its next request as soon
 * as its last one is answered. Requests per second and latency percentiles of the answers.
 */

export interface LoadFigures {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * Runs `workers` loops for `seconds`; `next(worker)` sends one request and resolves when it is
 * answered, or returns false when that worker has nothing left to send.
 */
export async function concurrentLoad(
  workers: number,
  seconds: number,
  next: (worker: number) => Promise<boolean> | false,
): Promise<LoadFigures> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1_000;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (performance.now() < until) {
        const sent = performance.now();
        const request = next(worker);
        if (request === false || !(await request)) return;
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1_000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds: elapsed,
    requestsPerSecond: latencies.length / elapsed,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
  };
}
