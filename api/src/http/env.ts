import type { Logger } from "pino";
import type { agents } from "../db/schema.ts";

/** What middleware puts on every request's context. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** Set by the auth middleware on routes that need an agent's key. */
    agent: AuthenticatedAgent;
    /** Set by the request budget on keyed requests: whose budget the request counts against. */
    rateLimitSubject: string;
  };
}

export interface AuthenticatedAgent {
  id: string;
  keyId: string;
  /** The agent's row, read with the key. */
  row: typeof agents.$inferSelect;
}
