import { hash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { Database } from "../db/client.ts";
import { agents, userSessions } from "../db/schema.ts";
import type { AppEnv } from "../http/env.ts";

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
  return hash("sha256", token, "hex");
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

/**
 * The live session of the request's `token`, looked up once a request (the budget, then a guard,
 * ask): undefined when it has ended or was never issued.
 */
export async function requestSession(c: Context<AppEnv>, db: Database, token: string) {
  const known = c.get("liveSession");
  if (known !== undefined) return known ?? undefined;
  const session = await findSession(db, token);
  c.set("liveSession", session ?? null);
  return session;
}

/** The condition "`address` (lowercase) owns the agent": an external agent's wallet, a hosted agent's owner. */
export function ownedBy(address: string) {
  return or(
    and(eq(agents.hosted, false), sql`lower(${agents.walletAddress}) = ${address}`),
    eq(agents.ownerAddress, address),
  );
}

/** The active agents `address` owns, oldest first. */
export function ownedAgents(db: Database, address: string) {
  return db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(and(eq(agents.isActive, true), ownedBy(address)))
    .orderBy(agents.createdAt, agents.id);
}

/** The active agent `agentId` if `address` owns it (its wallet, or a hosted agent's owner_address). */
export async function ownedAgent(db: Database, address: string, agentId: string) {
  const [agent] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.isActive, true), ownedBy(address)));
  return agent;
}
