import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { generateSiweNonce, parseSiweMessage, verifySiweMessage } from "viem/siwe";
import {
  findSession,
  hashSessionToken,
  newSessionToken,
  ownedAgents,
  SESSION_HOURS,
} from "../../auth/user-sessions.ts";
import { siweNonces, userSessions } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { unauthorized } from "../shared/errors.ts";

/*
 * Owners' sessions from Sign-In with Ethereum (EIP-4361). A nonce is valid NONCE_MINUTES and
 * spent by the first login that carries it; a login checks the message's domain (this host), chain
 * and signature, and answers a session token valid for SESSION_HOURS.
 */

export const NONCE_MINUTES = 10;

export interface Nonce {
  nonce: string;
  expiresAt: Date;
}

/** An agent a session's address owns. */
export interface OwnedAgent {
  id: string;
  name: string;
}

export interface Session {
  /** As the message wrote it (login) or lowercase (a stored session). */
  address: string;
  expiresAt: Date;
  agents: OwnedAgent[];
}

export interface LoginInput {
  message: string;
  signature: Hex;
  /** The host this request was made to: the message must name it as its domain. */
  host: string;
}

const refused = (reason: string) => unauthorized(`Sign-In with Ethereum refused: ${reason}`);

export function sessionUseCases(deps: Pick<Deps, "db" | "chain">) {
  const { db, chain } = deps;

  /** A fresh nonce for a SIWE message. */
  async function nonce(): Promise<Nonce> {
    const value = generateSiweNonce();
    const expiresAt = new Date(Date.now() + NONCE_MINUTES * 60_000);
    await db.insert(siweNonces).values({ nonce: value, expiresAt });
    return { nonce: value, expiresAt };
  }

  /** Checks a signed SIWE message, spends its nonce and opens a session (401 for any refusal). */
  async function login({ message, signature, host }: LoginInput): Promise<Session & { token: string }> {
    const fields = parseSiweMessage(message);
    if (!fields.address || !fields.nonce || !fields.domain) throw refused("not an EIP-4361 message");
    if (fields.domain !== host) throw refused(`the message is for ${fields.domain}, not ${host}`);
    if (fields.chainId !== chain.chainId) throw refused(`the message is for chain ${fields.chainId}`);
    // Signature, domain, nonce and the message's own time limits (expirationTime, notBefore).
    const valid = await verifySiweMessage(chain.publicClient, {
      message,
      signature,
      domain: host,
      nonce: fields.nonce,
    }).catch(() => false);
    if (!valid) throw refused("the signature does not match the message, or the message has expired");
    const [spent] = await db
      .update(siweNonces)
      .set({ usedAt: new Date() })
      .where(and(eq(siweNonces.nonce, fields.nonce), isNull(siweNonces.usedAt), gt(siweNonces.expiresAt, sql`now()`)))
      .returning({ nonce: siweNonces.nonce });
    if (!spent) throw refused("unknown, expired or already used nonce");
    const address = fields.address.toLowerCase();
    const token = newSessionToken();
    const expiresAt = new Date(Date.now() + SESSION_HOURS * 3_600_000);
    await db.insert(userSessions).values({ tokenHash: hashSessionToken(token), address, expiresAt });
    return { token, address: fields.address, expiresAt, agents: await ownedAgents(db, address) };
  }

  /** Ends the session of `token` (401 without a token, or for one already ended or unknown). */
  async function logout(token: string | undefined): Promise<void> {
    if (!token) throw unauthorized();
    const ended = await db
      .update(userSessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(userSessions.tokenHash, hashSessionToken(token)), isNull(userSessions.revokedAt)))
      .returning({ id: userSessions.id });
    if (ended.length === 0) throw unauthorized();
  }

  /** The live session of `token` and the agents it may act for (401 otherwise). */
  async function session(token: string | undefined): Promise<Session> {
    const found = token ? await findSession(db, token) : undefined;
    if (!found) throw unauthorized();
    return { address: found.address, expiresAt: found.expiresAt, agents: await ownedAgents(db, found.address) };
  }

  return { nonce, login, logout, session };
}
