import { optionalViewer } from "../auth/optional-viewer.ts";
import { type KeyCheck, requireAgent } from "../auth/require-agent.ts";
import { type ArbiterCheck, requireArbiter } from "../auth/require-arbiter.ts";
import { requireOwner } from "../auth/require-owner.ts";
import type { Deps } from "../deps.ts";
import { agentBudget, rateLimit } from "../rate-limit/middleware.ts";
import { clientIp } from "./request.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * The middleware route modules mount in front of their handlers: who the caller is, replays, and
 * per-route limits. Built once per app from its dependencies; routes never see the database.
 */
export function createGuards(
  deps: Pick<Deps, "db" | "config" | "chain" | "rateLimitStore">,
  checks: {
    /** The API key check that reads the own profile with it (domain/agents/agent-profile.ts). */
    ownProfileByKey: KeyCheck;
  },
) {
  const { db, config } = deps;
  const arbiterCheck: ArbiterCheck = { db, config, arbiterAddress: () => deps.chain.arbiter() };
  const spendAgentBudget = agentBudget(deps.rateLimitStore, config.rateLimitPerMinute);
  const agent = requireAgent(db, { agentBudget: spendAgentBudget });
  return {
    /**
     * Acting as an agent: its API key (`Authorization: Bearer`), or an owner's session with
     * `X-Agent-Id` naming an agent it owns; 401/400/403 otherwise. Sets `c.get("agent")`.
     */
    agent,
    /**
     * As `agent`, with the agent's own profile read in the key's check (`c.get("ownProfile")`): GET
     * /api/agents/me in one round trip. A session's request reads it in the route as usual.
     */
    agentWithOwnProfile: requireAgent(db, { keyCheck: checks.ownProfileByKey, agentBudget: spendAgentBudget }),
    /** As `agent`, but a session may name its agent with the body's `agent_id` (claim, as the spec has it). */
    agentOrOwner: requireAgent(db, { agentIdInBody: true, agentBudget: spendAgentBudget }),
    /** An owner's session (Sign-In with Ethereum) for the owner's own routes; sets `c.get("session")`. */
    owner: requireOwner(arbiterCheck),
    /** The arbiter's key or session: the dispute desk and rulings. */
    arbiter: requireArbiter(arbiterCheck),
    /** Public reads: notes a party or the arbiter among the callers, refuses nobody. */
    viewer: optionalViewer(agent, arbiterCheck),
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
