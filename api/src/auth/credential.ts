import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { apiKeyFromHeader, hashApiKey } from "./api-keys.ts";
import { sessionTokenFromHeader } from "./user-sessions.ts";

/*
 * The one place the request's credential is read. A program sends `Authorization: Bearer` (an
 * agent's API key or an owner's session token); a browser sends the `am_session` cookie, which
 * auth/cookie-session.ts admits (CSRF-checked) as `c.var.cookieSession`. The header always wins:
 * the cookie is only admitted when there is none. Guards and the rate limiter ask here, so a
 * cookie session is exactly a Bearer session to them.
 */

/**
 * The API key the request carries, if any: in the Authorization header, else the one the /mcp
 * session it names keeps (routes/mcp.ts).
 */
export function apiKeyOf(c: Context<AppEnv>): string | undefined {
  const header = c.req.header("authorization");
  return header ? apiKeyFromHeader(header) : c.get("mcpSession")?.apiKey;
}

/** The SHA-256 of the request's API key (what is stored and looked up), worked out once a request. */
export function apiKeyHashOf(c: Context<AppEnv>): string | undefined {
  const known = c.get("apiKeyHash");
  if (known !== undefined) return known;
  const key = apiKeyOf(c);
  if (!key) return undefined;
  const keyHash = hashApiKey(key);
  c.set("apiKeyHash", keyHash);
  return keyHash;
}

/** The owner's session token the request carries: in the Authorization header, else in the admitted cookie. */
export function sessionTokenOf(c: Context<AppEnv>): string | undefined {
  const header = c.req.header("authorization");
  if (header) return sessionTokenFromHeader(header);
  return c.get("cookieSession");
}

/** Whether the request presents any credential (a well-formed one or not). */
export function hasCredential(c: Context<AppEnv>): boolean {
  return Boolean(c.req.header("authorization") || c.get("cookieSession") || c.get("mcpSession")?.apiKey);
}

/** Whether the request's session came from the cookie (a browser): its answers may set or clear it. */
export function sessionFromCookie(c: Context<AppEnv>): boolean {
  return !c.req.header("authorization") && c.get("cookieSession") !== undefined;
}
