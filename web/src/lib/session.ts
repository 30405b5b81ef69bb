import { useSyncExternalStore } from "react";
import { client, setSessionCsrfToken } from "./client.ts";
import { isStatus } from "./errors.ts";

/*
 * Who is signed in. The session itself lives only in the HttpOnly cookie (JS never sees it); this
 * page keeps what the API answers about it (address, agents) and the CSRF token, in memory only.
 * On load `client.getSession()` tells whether a cookie session exists (asked only when the API's
 * readable am_signed_in cookie says there may be one).
 */

export interface SessionAgent {
  id: string;
  name: string;
}

export type SessionState =
  | { status: "loading" }
  | { status: "signed-out"; expired: boolean }
  | { status: "signed-in"; address: string; expiresAt: string; agents: SessionAgent[] };

interface SessionAnswer {
  address: string;
  expires_at: string;
  agents: SessionAgent[];
  csrf_token?: string;
}

let state: SessionState = { status: "loading" };
const listeners = new Set<() => void>();
const dropListeners = new Set<() => void>();

function set(next: SessionState) {
  state = next;
  for (const listener of listeners) listener();
}

export const sessionStore = {
  get: () => state,
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** Called when a session ends (sign-out or expiry), e.g. to drop the owner's cached data. */
  onDrop(listener: () => void) {
    dropListeners.add(listener);
    return () => dropListeners.delete(listener);
  },
};

export function useSession(): SessionState {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.get);
}

/** Set with the session cookie by the API, readable here, secret of nothing: "there may be a session". */
const HINT_COOKIE = "am_signed_in";
const hasHint = () => document.cookie.split("; ").some((cookie) => cookie.startsWith(`${HINT_COOKIE}=`));
/** A session that ended early (revoked, or expired in the database): the hint goes with it. */
const dropHint = () => {
  // biome-ignore lint/suspicious/noDocumentCookie: one fixed cookie, removed; the Cookie Store API is not in every browser
  document.cookie = `${HINT_COOKIE}=; Max-Age=0; Path=/; SameSite=Strict`;
};

/**
 * Asks the API whether this browser has a session cookie: only when the hint says there may be one,
 * so a visitor who never signed in is not sent to GET /api/auth/session (a 401) on every page.
 */
export async function loadSession(): Promise<void> {
  if (!hasHint()) {
    set({ status: "signed-out", expired: false });
    return;
  }
  try {
    signedIn(await client.getSession());
  } catch (error) {
    if (isStatus(error, 401)) dropHint();
    else console.warn("GET /api/auth/session failed", error);
    set({ status: "signed-out", expired: false });
  }
}

/** A login or session answer: the session's address and agents, and its CSRF token. */
export function signedIn(answer: SessionAnswer) {
  setSessionCsrfToken(answer.csrf_token);
  set({ status: "signed-in", address: answer.address, expiresAt: answer.expires_at, agents: answer.agents });
}

function drop(expired: boolean) {
  dropHint();
  setSessionCsrfToken(undefined);
  set({ status: "signed-out", expired });
  for (const listener of dropListeners) listener();
}

export async function signOut(): Promise<void> {
  try {
    await client.logout();
  } finally {
    drop(false);
  }
}

/** A session route answered 401: the cookie's session is over. */
export function sessionExpired() {
  if (state.status === "signed-in") drop(true);
}
