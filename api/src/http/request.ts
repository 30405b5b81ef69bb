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
