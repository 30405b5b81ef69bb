import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { agents } from "../db/schema.ts";
import type { ReceiptHolder } from "../domain/x402/receipt-tokens.ts";
import type { RateLimitKind } from "../rate-limit/kinds.ts";

/**
 * What the app's own middleware puts on every request's context. What a guard sets (the acting
 * agent, an owner's session, the arbiter) is not here: a route's handler has it in its context's
 * type only when its definition declares that guard (http/guards.ts `guard`).
 */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** The request's session token looked up (auth/user-sessions.ts `requestSession`): null when not live. */
    liveSession?: { id: string; address: string; expiresAt: Date } | null;
    /** The hash of the request's API key, once worked out (auth/credential.ts `apiKeyHashOf`). */
    apiKeyHash?: string;
    /**
     * The session token of the `am_session` cookie, set (by auth/cookie-session.ts) only when the
     * request has no Authorization header and, for an unsafe method, passed the CSRF check.
     */
    cookieSession?: string;
    /** The /mcp session the request names (`Mcp-Session-Id`), live, with the key it keeps (routes/mcp.ts). */
    mcpSession?: { id: string; apiKey: string | undefined };
    /**
     * The app's guards and Idempotency-Key middleware, by name, which the routes' declared guards
     * run (http/guards.ts `guard`, which knows their types: typed here, env.ts would import guards.ts
     * and, through the auth middleware, itself).
     */
    guards: { readonly [name: string]: unknown };
    /** The request's receipt token looked up (auth/receipt-tokens.ts `requestReceipt`): null when unknown. */
    receipt?: ReceiptHolder | null;
    /** The budget that refused this request (429), if one did (rate-limit/middleware.ts `spendBudget`). */
    rateLimited?: RateLimitKind;
  };
}

/** What guards set, each only on the routes that declare it. */
export interface GuardVariables {
  /** The agent the request acts as: by its key, or an owner's session acting for it. */
  agent: AuthenticatedAgent;
  /**
   * GET /api/agents/me's answer, as JSON, when the key check read it with the key (in the same
   * statement).
   */
  ownProfile: string;
  /** A live owner's session (Sign-In with Ethereum). */
  session: OwnerSession;
  /** The arbiter's key or session. */
  arbiter: true;
}

/**
 * The context guards run in: the app's variables and whatever guards before them set (or not). Code
 * that reads a guard's variable without declaring the guard (the idempotency middleware, a shared
 * guard) sees it as optional.
 */
export interface GuardEnv {
  Variables: AppEnv["Variables"] & Partial<GuardVariables>;
}

/**
 * A guard: middleware that refuses a request or lets it through with `Sets` on its context. A route
 * that declares it (`middleware`) has `Sets` in its handler's context type, and only such a route.
 */
export type Guard<Sets extends Partial<GuardVariables> = Record<never, never>> = MiddlewareHandler<{
  Variables: AppEnv["Variables"] & Sets;
}>;

export interface AuthenticatedAgent {
  id: string;
  /** The API key's id, or `session:<id>` when an owner's session acts for the agent. */
  keyId: string;
  /** The agent's row, read with the key. */
  row: typeof agents.$inferSelect;
}

export interface OwnerSession {
  id: string;
  /** Lowercase. */
  address: string;
}
