import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError } from "../http/errors.ts";
import { isOwnOrigin, requestOrigin } from "../http/request.ts";
import { findSession, SESSION_HOURS } from "./user-sessions.ts";

/*
 * Browser sessions. In a browser the owner's session lives in an HttpOnly, SameSite=Strict cookie
 * that scripts cannot read (so no script, injected or not, can carry the token off); programs keep
 * sending `Authorization: Bearer`. Cookies ride along on any request the browser makes to this
 * origin, so a state-changing request authenticated by one must also prove it comes from our own
 * page: the `X-CSRF-Token` header (which another site cannot read or set), derived from the session
 * token, and an `Origin` that is ours when the browser sends one.
 */

export const SESSION_COOKIE = "am_session";
/**
 * Set and cleared with the session cookie, readable by the page, secret of nothing: it only tells
 * the page there may be a session to ask about, so a visitor who never signed in is not sent to
 * GET /api/auth/session (and its 401) on every page load.
 */
export const SIGNED_IN_HINT_COOKIE = "am_signed_in";
export const CSRF_HEADER = "X-CSRF-Token";

const SESSION_TOKEN = /^sess_[0-9a-f]{64}$/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The CSRF token of a session: a hash of the session token under its own label. The page learns it
 * from login or GET /api/auth/session; it reveals nothing of the token, and needs no storage.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHash("sha256").update(`am-csrf:${sessionToken}`).digest("hex");
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

type CookieConfig = Pick<Config, "trustProxy" | "publicBaseUrl">;

/** Whether an unsafe request carrying the session cookie comes from this service's own page. */
function passesCsrf(c: Context<AppEnv>, token: string, config: CookieConfig): boolean {
  if (c.req.header("sec-fetch-site") === "cross-site") return false;
  if (!isOwnOrigin(c, config)) return false;
  const given = c.req.header(CSRF_HEADER);
  return given !== undefined && sameSecret(given, csrfTokenOf(token));
}

/**
 * Admits the `am_session` cookie as the request's session (see auth/credential.ts) when there is
 * no Authorization header. An unsafe method must pass the CSRF check; if it does not and the cookie
 * names a live session: 403 `csrf_failed`, before anything runs. A cookie of an ended session
 * authenticates nothing (the request goes on as anonymous), so signing in again is never blocked.
 */
export function cookieSession(db: Database, config: CookieConfig): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.header("authorization")) return next();
    const token = getCookie(c, SESSION_COOKIE);
    if (!token || !SESSION_TOKEN.test(token)) return next();
    if (!SAFE_METHODS.has(c.req.method) && !passesCsrf(c, token, config)) {
      if (await findSession(db, token)) {
        throw new ApiError(
          "csrf_failed",
          `A request signed in by cookie must come from this site's own page with the ${CSRF_HEADER} header of its session`,
        );
      }
      return next();
    }
    c.set("cookieSession", token);
    await next();
  };
}

/** Sets the session cookie, and its hint, on the answer (login with `cookie: true`). */
export function setSessionCookie(c: Context<AppEnv>, token: string, config: CookieConfig): void {
  const options = {
    sameSite: "Strict",
    path: "/",
    maxAge: SESSION_HOURS * 3600,
    secure: requestOrigin(c, config.trustProxy).startsWith("https:"),
  } as const;
  setCookie(c, SESSION_COOKIE, token, { ...options, httpOnly: true });
  setCookie(c, SIGNED_IN_HINT_COOKIE, "1", options);
}

/** Clears the session cookie and its hint if the request carried them (logout). */
export function clearSessionCookie(c: Context<AppEnv>): void {
  for (const name of [SESSION_COOKIE, SIGNED_IN_HINT_COOKIE]) {
    if (getCookie(c, name) !== undefined) deleteCookie(c, name, { path: "/" });
  }
}
