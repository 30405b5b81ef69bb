import type { Context, MiddlewareHandler } from "hono";
import { optionalViewer } from "../auth/optional-viewer.ts";
import { receiptOr } from "../auth/receipt-tokens.ts";
import { type KeyCheck, requireAgent } from "../auth/require-agent.ts";
import { type ArbiterCheck, requireArbiter } from "../auth/require-arbiter.ts";
import { requireOwner } from "../auth/require-owner.ts";
import type { Deps } from "../deps.ts";
import { agentBudget, rateLimit } from "../rate-limit/middleware.ts";
import type { AppEnv, AuthenticatedAgent, Guard, GuardEnv, GuardVariables, OwnerSession } from "./env.ts";
import { idempotency } from "./idempotency.ts";
import { clientIp } from "./request.ts";

const HOUR_MS = 60 * 60 * 1000;

/** What acting as an agent sets: the agent, and the owner's session when one acts for it. */
type ActingAgent = { agent: AuthenticatedAgent; session?: OwnerSession };

/**
 * A guard written against {@link GuardEnv} (where every guard's variable may or may not be set),
 * typed with what it sets for the handlers behind it.
 */
function asGuard<Sets extends Partial<GuardVariables>>(run: MiddlewareHandler<GuardEnv>): Guard<Sets> {
  return run as unknown as Guard<Sets>;
}

/**
 * The middleware routes run in front of their handlers: who the caller is, per-route limits and
 * replays. Built once per app from its dependencies (routes never see the database); app.ts puts
 * them on every /api request's context, where the guards routes declare ({@link guard}) find them.
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
     * `X-Agent-Id` naming an agent it owns; 401/400/403 otherwise. Sets `agent` (and `session` for a
     * session's request).
     */
    agent: asGuard<ActingAgent>(agent),
    /**
     * As `agent`, with the agent's own profile read in the key's check (`ownProfile`): GET
     * /api/agents/me in one round trip. A session's request reads it in the route as usual.
     */
    agentWithOwnProfile: asGuard<ActingAgent & { ownProfile?: string }>(
      requireAgent(db, { keyCheck: checks.ownProfileByKey, agentBudget: spendAgentBudget }),
    ),
    /** As `agent`, but a session may name its agent with the body's `agent_id` (claim, as the spec has it). */
    agentOrOwner: asGuard<ActingAgent>(requireAgent(db, { agentIdInBody: true, agentBudget: spendAgentBudget })),
    /** An owner's session (Sign-In with Ethereum) for the owner's own routes; sets `session`. */
    owner: asGuard<{ session: OwnerSession }>(requireOwner(arbiterCheck)),
    /** The arbiter's key or session: the dispute desk and rulings. Sets `arbiter`. */
    arbiter: asGuard<{ arbiter: true }>(requireArbiter(arbiterCheck)),
    /** Public reads: notes a party (`agent`) or the arbiter among the callers, refuses nobody. */
    viewer: asGuard<Partial<ActingAgent> & { arbiter?: true }>(optionalViewer(agent, arbiterCheck)),
    /**
     * As `agent`, on a route of one transaction (`/{id}`): an x402 payment's receipt token of that
     * transaction also acts, as its buyer (auth/receipt-tokens.ts).
     */
    agentOrReceipt: asGuard<ActingAgent>(receiptOr(db, agent)),
    /** As `viewer`, on a route of one transaction: its receipt token reads as its buyer. */
    viewerOrReceipt: asGuard<Partial<ActingAgent> & { arbiter?: true }>(
      receiptOr(db, optionalViewer(agent, arbiterCheck)),
    ),
    /** Registrations per client IP and hour. */
    registrationLimit: rateLimit(deps.rateLimitStore, {
      name: "registrations",
      kind: "registrations",
      limit: config.registrationsPerHour,
      windowMs: HOUR_MS,
      keyOf: (c) => clientIp(c, config.trustProxy),
    }) satisfies Guard,
    /** Direct messages and feed posts per agent and minute (after `agent`): 429 beyond. */
    messageLimit: rateLimit(deps.rateLimitStore, {
      name: "messages",
      kind: "messages",
      limit: config.messagesPerMinute,
      windowMs: 60_000,
      keyOf: (c) => {
        const acting = (c as Context<GuardEnv>).var.agent;
        if (!acting) throw new Error(`${c.req.method} ${c.req.path} declares messageLimit without an agent before it`);
        return acting.id;
      },
    }) satisfies Guard,
    /** `Idempotency-Key` (http/idempotency.ts): the writes declared with `createIdempotentRoute` run it. */
    idempotency: asGuard(idempotency(db, config.masterKey)),
  };
}

export type Guards = ReturnType<typeof createGuards>;

/** The guard of this name the app built, run on the request (app.ts puts the app's guards on the context). */
function declared<K extends keyof Guards>(name: K): Guards[K] {
  const run: MiddlewareHandler<AppEnv> = (c, next) => (c.var.guards[name] as MiddlewareHandler<AppEnv>)(c, next);
  return run as Guards[K];
}

/**
 * What a route requires, as its definition declares it: `createRoute({ …, middleware: guard.agent })`
 * (or `createIdempotentRoute({ …, middleware: [guard.owner, guard.registrationLimit] })`). They run
 * in that order after the app's own middleware and before the route's validators (so a caller
 * without a key is 401 whatever it sent), and each is typed with what it sets: `c.var.agent`
 * type-checks only in a handler whose route declares `guard.agent` (or another guard that sets it).
 */
export const guard = {
  agent: declared("agent"),
  agentWithOwnProfile: declared("agentWithOwnProfile"),
  agentOrOwner: declared("agentOrOwner"),
  owner: declared("owner"),
  arbiter: declared("arbiter"),
  viewer: declared("viewer"),
  agentOrReceipt: declared("agentOrReceipt"),
  viewerOrReceipt: declared("viewerOrReceipt"),
  registrationLimit: declared("registrationLimit"),
  messageLimit: declared("messageLimit"),
};
