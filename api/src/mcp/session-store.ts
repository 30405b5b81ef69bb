import { createHash, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { openSecret, sealSecret } from "../crypto/secret-box.ts";
import type { Database } from "../db/client.ts";
import { mcpSessions } from "../db/schema.ts";

/*
 * The sessions of /mcp, shared by every API process through Postgres (a client's requests may
 * reach any of them). A session id is 32 random bytes, stored only as its SHA-256; the agent key
 * a session acts with is sealed under the master key, bound to that hash. A session nobody used
 * for IDLE_MS ends; every use pushes its end back.
 */

/** How long an unused session lives. */
export const MCP_SESSION_IDLE_MS = 60 * 60 * 1000;
const SESSION_ID = /^mcp_[A-Za-z0-9_-]{43}$/;

export interface McpSessionStore {
  /** A new session (acting with `apiKey` if given): its id, for the `Mcp-Session-Id` header. */
  open(apiKey: string | undefined): Promise<string>;
  /** The live session `id` names, its end pushed back; undefined when unknown or ended. */
  resume(id: string): Promise<{ apiKey: string | undefined } | undefined>;
  /** The session acts with `apiKey` from now on (after `register`, or a key rotated). */
  keep(id: string, apiKey: string): Promise<void>;
  /**
   * Takes the one `register` of a session without a key: false when it has a key, or another
   * request took it first (one conditional update, so of concurrent requests exactly one wins).
   */
  claimRegistration(id: string): Promise<boolean>;
  /** Gives back a registration that failed: the session has no key and may register again. */
  releaseRegistration(id: string): Promise<void>;
  /** Ends the session (the client's DELETE). */
  end(id: string): Promise<void>;
}

/**
 * sealed_key while a session's `register` runs: never a sealed secret (those are `<version>:<iv>:<tag>:<ciphertext>`), so the
 * session still acts as nobody, and no second registration starts. A process that dies here
 * leaves the session unable to register: its client starts a new one.
 */
const REGISTERING = "registering";

export function createMcpSessionStore(db: Database, masterKey: Buffer, idleMs = MCP_SESSION_IDLE_MS): McpSessionStore {
  const hashOf = (id: string) => createHash("sha256").update(id).digest("hex");
  const seal = (idHash: string, apiKey: string) => sealSecret(Buffer.from(apiKey), `mcp-session:${idHash}`, masterKey);
  const endsAt = () => new Date(Date.now() + idleMs);

  return {
    async open(apiKey) {
      const id = `mcp_${randomBytes(32).toString("base64url")}`;
      const idHash = hashOf(id);
      // Sessions that ended go as new ones come: the table holds about the live ones.
      await db.delete(mcpSessions).where(lt(mcpSessions.expiresAt, sql`now()`));
      await db
        .insert(mcpSessions)
        .values({ idHash, sealedKey: apiKey === undefined ? null : seal(idHash, apiKey), expiresAt: endsAt() });
      return id;
    },
    async resume(id) {
      if (!SESSION_ID.test(id)) return undefined;
      const idHash = hashOf(id);
      const [row] = await db
        .update(mcpSessions)
        .set({ expiresAt: endsAt() })
        .where(sql`${mcpSessions.idHash} = ${idHash} and ${mcpSessions.expiresAt} > now()`)
        .returning({ sealedKey: mcpSessions.sealedKey });
      if (!row) return undefined;
      if (row.sealedKey === null || row.sealedKey === REGISTERING) return { apiKey: undefined };
      try {
        return { apiKey: openSecret(row.sealedKey, `mcp-session:${idHash}`, masterKey).toString() };
      } catch {
        // Sealed under another master key (it was changed): the session cannot act; a new one can.
        return undefined;
      }
    },
    async keep(id, apiKey) {
      const idHash = hashOf(id);
      await db
        .update(mcpSessions)
        .set({ sealedKey: seal(idHash, apiKey) })
        .where(eq(mcpSessions.idHash, idHash));
    },
    async claimRegistration(id) {
      const taken = await db
        .update(mcpSessions)
        .set({ sealedKey: REGISTERING })
        .where(and(eq(mcpSessions.idHash, hashOf(id)), isNull(mcpSessions.sealedKey)))
        .returning({ idHash: mcpSessions.idHash });
      return taken.length === 1;
    },
    async releaseRegistration(id) {
      await db
        .update(mcpSessions)
        .set({ sealedKey: null })
        .where(and(eq(mcpSessions.idHash, hashOf(id)), eq(mcpSessions.sealedKey, REGISTERING)));
    },
    async end(id) {
      if (!SESSION_ID.test(id)) return;
      await db.delete(mcpSessions).where(eq(mcpSessions.idHash, hashOf(id)));
    },
  };
}
