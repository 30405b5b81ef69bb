import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { compiled, literalLimit } from "../db/compiled-statement.ts";
import { agents, apiKeys } from "../db/schema.ts";
import type { Agent } from "../domain/agents/agent-summary.ts";
import { badRequest, forbidden, unauthorized } from "../domain/shared/errors.ts";
import { isUuid } from "../domain/shared/ids.ts";
import type { AppEnv, GuardEnv } from "../http/env.ts";
import { apiKeyHashOf, sessionTokenOf } from "./credential.ts";
import { receiptOutOfScope, receiptTokenOf } from "./receipt-tokens.ts";
import { ownedAgent, requestSession } from "./user-sessions.ts";

/** The header an owner's session names the agent it acts for with. */
export const AGENT_ID_HEADER = "X-Agent-Id";

/** How often a key's `last_used_at` is written: once a minute is enough to tell live keys from dead. */
const LAST_USED_RESOLUTION = "1 minute";

/**
 * What an API key check finds: the key and its agent, and (for a check that reads more in the same
 * statement) the agent's own profile.
 */
export interface KeyCheckResult {
  keyId: string;
  lastUsedAt: Date | null;
  agent: Agent;
  /** The own profile's JSON. */
  ownProfile?: string;
}

/** Finds the live key of `keyHash` held by an active agent; undefined when there is none. */
export type KeyCheck = (keyHash: string) => Promise<KeyCheckResult | undefined>;

export interface RequireAgentOptions {
  /**
   * Checks an API key in place of the plain check: one that also reads what the route answers
   * (GET /me: the own profile, domain/agents/agent-profile.ts) saves the route a second round trip. It
   * must refuse what the plain check refuses: revoked keys and inactive agents.
   */
  keyCheck?: KeyCheck;
  /**
   * A session may name its agent with the body's `agent_id` instead of the header (claim: the spec
   * puts `{ agent_id }` in its body).
   */
  agentIdInBody?: boolean;
  /**
   * Spends the agent's request budget when an owner's session acts for it (a key's request spent
   * it already, rate-limit/middleware.ts): one budget per agent, whoever acts for it.
   */
  agentBudget?: (c: Context<AppEnv>, agentId: string) => Promise<void>;
}

/**
 * 401 unless the request acts as an active agent: by that agent's live API key, or by an owner's
 * session (Sign-In with Ethereum) with `X-Agent-Id` naming an agent the session's address owns
 * (400 without the header, 403 for an agent it does not own). Sets `c.var.agent` with the agent's
 * row as read in the same query (and `c.var.session` for a session). Applied twice to one request,
 * it checks once. A JSON body's `agent_id` naming another agent is refused (see
 * {@link refuseOtherAgentId}).
 */
export function requireAgent(db: Database, options: RequireAgentOptions = {}): MiddlewareHandler<GuardEnv> {
  const authenticate = compiled(
    db
      .select({ keyId: apiKeys.id, lastUsedAt: apiKeys.lastUsedAt, agent: agents })
      .from(apiKeys)
      .innerJoin(agents, eq(agents.id, apiKeys.agentId))
      .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.revokedAt), eq(agents.isActive, true)))
      .limit(literalLimit(1))
      .prepare("authenticate_api_key"),
  );
  const touch = db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.id, sql.placeholder("keyId")),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql`now() - ${LAST_USED_RESOLUTION}::interval`)),
      ),
    )
    .prepare("touch_api_key");
  const checkKey: KeyCheck = options.keyCheck ?? (async (keyHash) => (await authenticate.execute({ keyHash }))[0]);

  return async (c, next) => {
    // Already authenticated by an enclosing route group's check of the same header.
    if (c.get("agent")) return next();
    const token = sessionTokenOf(c);
    if (token) return actAsOwnedAgent(c, next, token);

    const keyHash = apiKeyHashOf(c);
    // A receipt token is for its transaction's routes only (auth/receipt-tokens.ts), never an agent's key.
    if (!keyHash && receiptTokenOf(c)) throw receiptOutOfScope();
    if (!keyHash) throw unauthorized();
    const found = await checkKey(keyHash);
    if (!found) throw unauthorized();
    await refuseOtherAgentId(c, found.agent.id);
    if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > 60_000) {
      // Not awaited: the request does not wait for bookkeeping, and a failure only delays it.
      touch.execute({ keyId: found.keyId }).catch(() => undefined);
    }
    c.set("agent", { id: found.agent.id, keyId: found.keyId, row: found.agent });
    if (found.ownProfile) c.set("ownProfile", found.ownProfile);
    // The request's own logger (app.ts): its lines from here on, the request's line among them, name the agent.
    c.get("logger").setBindings({ agent_id: found.agent.id });
    await next();
  };

  async function actAsOwnedAgent(c: Context<GuardEnv>, next: () => Promise<void>, token: string) {
    const session = await requestSession(c, db, token);
    if (!session) throw unauthorized();
    const agentId = c.req.header(AGENT_ID_HEADER) ?? (options.agentIdInBody ? await bodyAgentId(c) : undefined);
    if (agentId === undefined) {
      throw badRequest(
        options.agentIdInBody
          ? `With a user session, send { agent_id } (or the ${AGENT_ID_HEADER} header) of an agent you own`
          : `With a user session, send the ${AGENT_ID_HEADER} header naming an agent you own`,
      );
    }
    if (!isUuid(agentId)) throw badRequest(`${AGENT_ID_HEADER} must be an agent's uuid`);
    const agent = await ownedAgent(db, session.address, agentId);
    if (!agent) throw forbidden("This session's address does not own that agent");
    await refuseOtherAgentId(c, agent.id);
    await options.agentBudget?.(c, agent.id);
    c.set("session", { id: session.id, address: session.address });
    c.set("agent", { id: agent.id, keyId: `session:${session.id}`, row: agent });
    c.get("logger").setBindings({ agent_id: agent.id, session_id: session.id });
    await next();
  }
}

/** The body's `agent_id` when it is a string (the route's schema judges it further), else undefined. */
async function bodyAgentId(c: Context<AppEnv>): Promise<string | undefined> {
  if (!c.req.header("content-type")?.toLowerCase().includes("application/json")) return undefined;
  const body: unknown = await c.req.json().catch(() => undefined);
  const named = typeof body === "object" && body !== null ? (body as { agent_id?: unknown }).agent_id : undefined;
  return typeof named === "string" ? named : undefined;
}

/**
 * Clients written for the live service send `agent_id` in the bodies of an agent's writes (a
 * review, a delivery): it names the agent acting. On every keyed route, a body whose `agent_id`
 * is another agent's uuid is refused with 403, whether or not the route's schema declares the field;
 * one that is not a uuid is left to the schema (400 where declared, ignored where not).
 */
export async function refuseOtherAgentId(c: Context<AppEnv>, actingAgentId: string): Promise<void> {
  if (c.req.method === "GET" || c.req.method === "HEAD") return;
  // Parsed once: the route's validator reads the same cached body.
  const named = await bodyAgentId(c);
  if (named !== undefined && isUuid(named) && named.toLowerCase() !== actingAgentId.toLowerCase()) {
    throw forbidden("agent_id names another agent than the one this request acts for");
  }
}
