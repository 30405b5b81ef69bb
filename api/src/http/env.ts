import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { agents } from "../db/schema.ts";

/** What middleware puts on every request's context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** Set by the auth middleware on routes that act as an agent: by its key or an owner's session. */
    agent: AuthenticatedAgent;
    /**
     * GET /api/agents/me's answer, as JSON, when the key check read it with the key (in the same
     * statement).
     */
    ownProfile: string;
    /** Set when the request carries a live owner's session (Sign-In with Ethereum). */
    session: OwnerSession;
    /** Set on the arbiter's routes, and on public reads made by the arbiter. */
    arbiter: true;
    /** The request's session token looked up (auth/user-sessions.ts `requestSession`): null when not live. */
    liveSession: { id: string; address: string; expiresAt: Date } | null;
    /** The hash of the request's API key, once worked out (auth/credential.ts `apiKeyHashOf`). */
    apiKeyHash: string;
    /**
     * The session token of the `am_session` cookie, set (by auth/cookie-session.ts) only when the
     * request has no Authorization header and, for an unsafe method, passed the CSRF check.
     */
    cookieSession: string;
    /** The /mcp session the request names (`Mcp-Session-Id`), live, with the key it keeps (routes/mcp.ts). */
    mcpSession: { id: string; apiKey: string | undefined };
    /** The app's Idempotency-Key middleware, which the routes declared idempotent run (http/idempotency.ts). */
    idempotency: MiddlewareHandler<AppEnv>;
  };
}

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
