import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { agents, userSessions } from "../db/schema.ts";
import { badRequest, forbidden, unauthorized } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import type { AppEnv } from "../http/env.ts";
import { requireAgent } from "./require-agent.ts";

/*
 * Owners' sessions from Sign-In with Ethereum. A session token is `sess_` and 64 hex characters,
 * never confused with an API key; it is stored as its SHA-256. A session may act for the agents
 * its address owns: an external agent whose wallet it is, or a hosted agent registered with it as
 * owner_address.
 */

const SESSION = /^Bearer (sess_[0-9a-f]{64})$/;
export const SESSION_HOURS = 24;

export function newSessionToken(): string {
  return `sess_${randomBytes(32).toString("hex")}`;
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function sessionTokenFromHeader(header: string | undefined): string | undefined {
  return header ? SESSION.exec(header.trim())?.[1] : undefined;
}

/** The live session of a token: its id and (lowercase) address. */
export async function findSession(db: Database, token: string) {
  const [session] = await db
    .select({ id: userSessions.id, address: userSessions.address, expiresAt: userSessions.expiresAt })
    .from(userSessions)
    .where(
      and(
        eq(userSessions.tokenHash, hashSessionToken(token)),
        isNull(userSessions.revokedAt),
        gt(userSessions.expiresAt, sql`now()`),
      ),
    );
  return session;
}

/** The active agents `address` owns. */
export function ownedAgents(db: Database, address: string) {
  return db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(
      and(
        eq(agents.isActive, true),
        or(sql`lower(${agents.walletAddress}) = ${address}`, eq(agents.ownerAddress, address)),
      ),
    );
}

/**
 * An agent's API key, or an owner's session with `{ agent_id }` in the JSON body naming an agent it
 * owns (403 otherwise). Either way `c.var.agent` is that agent.
 */
export function requireAgentOrOwner(db: Database): MiddlewareHandler<AppEnv> {
  const byKey = requireAgent(db);
  return async (c: Context<AppEnv>, next) => {
    const token = sessionTokenFromHeader(c.req.header("authorization"));
    if (!token) return byKey(c, next);
    const session = await findSession(db, token);
    if (!session) throw unauthorized();
    const body = (await c.req.json().catch(() => undefined)) as { agent_id?: unknown } | undefined;
    const agentId = body?.agent_id;
    if (typeof agentId !== "string" || !isUuid(agentId)) {
      throw badRequest("With a user session, send { agent_id } of an agent you own");
    }
    const [agent] = await db
      .select()
      .from(agents)
      .where(
        and(
          eq(agents.id, agentId),
          eq(agents.isActive, true),
          or(sql`lower(${agents.walletAddress}) = ${session.address}`, eq(agents.ownerAddress, session.address)),
        ),
      );
    if (!agent) throw forbidden("This session's address does not own that agent");
    c.set("agent", { id: agent.id, keyId: `session:${session.id}`, row: agent });
    c.set("logger", c.get("logger").child({ agent_id: agent.id, session_id: session.id }));
    await next();
  };
}
