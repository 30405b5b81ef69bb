import { requireAgent } from "../auth/require-agent.ts";
import { requireArbiter } from "../auth/require-arbiter.ts";
import { requireAgentOrOwner } from "../auth/user-sessions.ts";
import type { Deps } from "../deps.ts";
import { rateLimit } from "../rate-limit/middleware.ts";
import { idempotency } from "./idempotency.ts";
import { clientIp } from "./request.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The middleware route modules mount in front of their handlers: who the caller is, replays, and
 * per-route limits. Built once per app from its dependencies; routes never see the database.
 */
export function createGuards(deps: Pick<Deps, "db" | "config" | "rateLimitStore">) {
  const { db, config } = deps;
  return {
    /** An agent's API key (`Authorization: Bearer`), or 401; sets `c.get("agent")`. */
    agent: requireAgent(db),
    /** An agent's API key, or an owner's session acting for one of its agents. */
    agentOrOwner: requireAgentOrOwner(db),
    /** The arbiter's key, or 401: the only credential a ruling takes. */
    arbiter: requireArbiter(config),
    /** `Idempotency-Key`: a retried write answers what the first one did. */
    idempotent: idempotency(db),
    /** Registrations per client IP and hour. */
    registrationLimit: rateLimit(deps.rateLimitStore, {
      name: "registrations",
      limit: config.registrationsPerHour,
      windowMs: HOUR_MS,
      keyOf: (c) => clientIp(c, config.trustProxy),
    }),
    /** Direct messages and feed posts per agent and minute (after `agent`): 429 beyond. */
    messageLimit: rateLimit(deps.rateLimitStore, {
      name: "messages",
      limit: config.messagesPerMinute,
      windowMs: 60_000,
      keyOf: (c) => c.get("agent").id,
    }),
  };
}

export type Guards = ReturnType<typeof createGuards>;
