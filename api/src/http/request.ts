import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import { badRequest } from "./errors.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids that are not uuids answer 404 (API.md), so routes check before they query. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

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

/** Keyset cursors: the sort value and id of the last row of a page, base64url JSON. */
export function encodeCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor(cursor: string): Record<string, string> & { id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.every(([, v]) => typeof v === "string")) return value as Record<string, string> & { id: string };
    }
  } catch {
    // fall through
  }
  throw badRequest("Invalid cursor");
}
