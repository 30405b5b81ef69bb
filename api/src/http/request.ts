import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/** Where clients reach the API: the configured public base URL, else this request's origin. */
export function publicBaseUrl(c: Context, configured: string | undefined): string {
  return configured ?? new URL(c.req.url).origin;
}

/** The client's IP: the socket's, or the first X-Forwarded-For hop behind a trusted proxy. */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    // app.request() in tests has no socket.
    return "local";
  }
}

/**
 * The origin the client addressed: this request's URL, or behind a trusted proxy the
 * X-Forwarded-Proto and X-Forwarded-Host it passes on (a TLS-terminating proxy makes the URL http).
 */
export function requestOrigin(c: Context, trustProxy: boolean): string {
  const url = new URL(c.req.url);
  if (!trustProxy) return url.origin;
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim();
  const host = c.req.header("x-forwarded-host")?.split(",")[0]?.trim();
  return `${proto || url.protocol.replace(/:$/, "")}://${host || url.host}`;
}

/**
 * Whether a browser's `Origin` (absent for same-origin GETs and for programs) is this service's
 * own: the request's origin, or the configured public base URL's.
 */
export function isOwnOrigin(c: Context, config: { trustProxy: boolean; publicBaseUrl?: string }): boolean {
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  const own = [requestOrigin(c, config.trustProxy)];
  if (config.publicBaseUrl) own.push(new URL(config.publicBaseUrl).origin);
  return own.includes(origin);
}
