import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { OperationsFigures } from "../domain/platform/operations.ts";
import { RATE_LIMIT_KINDS, type RateLimitKind } from "../rate-limit/kinds.ts";
import { operationsRegistry } from "./operations-gauges.ts";

/*
 * The Prometheus series of one app (GET /metrics). What this process itself sees (its requests,
 * its rate-limit refusals, its open streams) is counted here, in a registry of the app's own, not
 * prom-client's global one: tests build many apps in one process, and each counts only its own.
 * What any process could answer (escrows, the relayer, webhooks, the indexer) is read at each
 * scrape (operations-gauges.ts).
 */

/** Request durations' buckets, in seconds: reads take milliseconds, writes wait for a block. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

let processRegistry: Registry | undefined;

/**
 * Node's own series (CPU, memory, event loop lag, GC, handles; `process_*` and `nodejs_*`, the
 * names dashboards expect): they describe the process, so every app of a process shares one set,
 * made when the first app is.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface RequestLabels {
  method: string;
  /** The route's pattern, never the URL (request-metrics.ts `routeLabel`). */
  route: string;
  status: string;
}

export function createAppMetrics() {
  const registry = new Registry();
  const processRegistry = processMetrics();
  const requestDuration = new Histogram<keyof RequestLabels>({
    name: "marketplace_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's headers, by method, route pattern and status code",
    labelNames: ["method", "route", "status"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter<"limit">({
    name: "marketplace_rate_limit_refusals_total",
    help: "Requests answered 429 by a rate limit: per_caller (an agent's key or an owner's session), per_ip (no credential), registrations (per IP), messages (per agent)",
    labelNames: ["limit"],
    registers: [registry],
  });
  // Every limit is present from the start, so a rate of refusals is 0 rather than absent.
  for (const limit of RATE_LIMIT_KINDS) refusals.inc({ limit }, 0);
  const streamsOpen = new Gauge({
    name: "marketplace_notification_streams_open",
    help: "Server-Sent Events notification streams (GET /api/notifications/stream) open in this process",
    registers: [registry],
  });

  return {
    contentType: registry.contentType,
    observeRequest(labels: RequestLabels, seconds: number): void {
      requestDuration.observe({ ...labels }, seconds);
    },
    countRefusal(limit: RateLimitKind): void {
      refusals.inc({ limit });
    },
    /** A stream opened; the function it answers closes it (once, however often it is called). */
    streamOpened(): () => void {
      streamsOpen.inc();
      let open = true;
      return () => {
        if (open) streamsOpen.dec();
        open = false;
      };
    },
    /** The exposition: this process's series, this app's and the scrape's figures. */
    render(figures: OperationsFigures): Promise<string> {
      return Registry.merge([processRegistry, registry, operationsRegistry(figures)]).metrics();
    },
  };
}

export type AppMetrics = ReturnType<typeof createAppMetrics>;
