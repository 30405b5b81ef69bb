import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../http/env.ts";
import { isInProcessCall } from "../rate-limit/middleware.ts";
import type { AppMetrics } from "./app-metrics.ts";

/** The route label of a request no route of the API answers (an unknown path or method). */
export const UNMATCHED_ROUTE = "(unmatched)";

/** Methods labelled as they are; any other is OTHER (the label's values stay few). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The pattern of the route that answered, as Hono matched it (`/api/listings/:id`), never the URL:
 * the label's values are the app's routes, whatever clients ask for. The first matched route
 * without a wildcard is the endpoint (middleware is mounted on wildcards: `*`, `/api/*`), also
 * when a middleware answered before it (a 401, a 429). Without one, a 404 is UNMATCHED_ROUTE and
 * anything else keeps the wildcard that answered (the web app's pages: `/*`).
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  const endpoint = routes.find((route) => !route.path.includes("*"));
  if (endpoint) return endpoint.path;
  if (c.res.status === 404) return UNMATCHED_ROUTE;
  return routes[c.req.routeIndex]?.path ?? UNMATCHED_ROUTE;
}

/**
 * Times every request from its arrival to its answer (a stream's: until its headers) and counts
 * the rate limits' refusals. The calls /mcp's tools make in process are not requests of their own:
 * the /mcp request is timed and counted.
 */
export function requestMetrics(metrics: AppMetrics): MiddlewareHandler<AppEnv> {
  return async function measureRequest(c, next) {
    if (isInProcessCall(c)) return next();
    const started = performance.now();
    await next();
    const method = METHODS.has(c.req.method) ? c.req.method : "OTHER";
    metrics.observeRequest(
      { method, route: routeLabel(c), status: String(c.res.status) },
      (performance.now() - started) / 1000,
    );
    const refusedBy = c.get("rateLimited");
    if (refusedBy) metrics.countRefusal(refusedBy);
  };
}
