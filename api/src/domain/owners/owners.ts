import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { newApiKey } from "../../auth/api-keys.ts";
import { ownedBy } from "../../auth/user-sessions.ts";
import type { Database } from "../../db/client.ts";
import { agents, apiKeys, notifications } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { recordsOf } from "../agents/agent-records.ts";
import { agentSummary, type DirectoryAgentView } from "../agents/agent-summary.ts";
import { type Agent, type RegisterAgentInput, registerAgent } from "../agents/agents.ts";
import { recordOf } from "../reads/track-record.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { badRequest, conflict, forbidden, notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";

/*
 * The people who own agents (API.md "Owners"), signed in with Ethereum: their agents at a glance,
 * hosted agents registered in their name, the API keys of the agents they own (list, issue,
 * revoke: how a hosted agent whose key was lost is recovered), and the adoption of a hosted agent
 * registered without an owner. `owner` is always the session's address, lowercase.
 */

/** One of an owner's agents, as the dashboard lists it. */
export interface OwnedAgentOverview {
  summary: DirectoryAgentView;
  hosted: boolean;
  isPaused: boolean;
  balances: { ethWei: bigint; usdcWei: bigint };
  liveKeys: number;
  unreadNotifications: number;
}

/** An API key as its owner sees it: never the key, only its first 8 hex characters. */
export interface ApiKeyRecord {
  id: string;
  prefix: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface IssuedKey {
  key: ApiKeyRecord;
  /** Shown this once; only its hash is stored. */
  apiKey: string;
  /** How many live keys were revoked with it (revokeOthers). */
  revoked: number;
}

const keyRecord = {
  id: apiKeys.id,
  prefix: apiKeys.prefix,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};

/**
 * The active agent `agentId` if `owner` owns it: 404 when no active agent has that id (or the id is
 * no uuid), 403 when another person's (or nobody's) agent does.
 */
export async function ownedActiveAgent(db: Database, owner: string, agentId: string): Promise<Agent> {
  if (!isUuid(agentId)) throw notFound("Agent");
  const [agent] = await db
    .select({ agent: agents, owned: sql<boolean>`coalesce(${ownedBy(owner)}, false)` })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.isActive, true)));
  if (!agent) throw notFound("Agent");
  if (!agent.owned) throw forbidden("This session's address does not own that agent");
  return agent.agent;
}

export function ownerUseCases(deps: Deps, paths: ApiPaths) {
  const { db, chain } = deps;

  const ownAgent = (owner: string, agentId: string) => ownedActiveAgent(db, owner, agentId);

  /** Live keys and unread notifications of each agent, counted in the database. */
  async function countsByAgent(ids: string[]) {
    if (ids.length === 0) return { liveKeys: new Map<string, number>(), unread: new Map<string, number>() };
    const [keys, unread] = await Promise.all([
      db
        .select({ agentId: apiKeys.agentId, n: sql<number>`count(*)::int` })
        .from(apiKeys)
        .where(and(inArray(apiKeys.agentId, ids), isNull(apiKeys.revokedAt)))
        .groupBy(apiKeys.agentId),
      db
        .select({ agentId: notifications.agentId, n: sql<number>`count(*)::int` })
        .from(notifications)
        .where(and(inArray(notifications.agentId, ids), isNull(notifications.readAt)))
        .groupBy(notifications.agentId),
    ]);
    return {
      liveKeys: new Map(keys.map((row) => [row.agentId, row.n])),
      unread: new Map(unread.map((row) => [row.agentId, row.n])),
    };
  }

  /**
   * The owner's active agents, oldest first, with their on-chain record, balances (read from the
   * chain, all at once), live keys and unread notifications.
   */
  async function agentsOf(owner: string): Promise<OwnedAgentOverview[]> {
    const rows = await db
      .select({ agent: agents })
      .from(agents)
      .where(and(eq(agents.isActive, true), ownedBy(owner)))
      .orderBy(agents.createdAt, agents.id);
    const ids = rows.map((row) => row.agent.id);
    const [counts, balances, records] = await Promise.all([
      countsByAgent(ids),
      Promise.all(rows.map((row) => chain.balances(getAddress(row.agent.walletAddress)))),
      recordsOf(db, chain.chainId, ids),
    ]);
    return rows.map(({ agent }, i) => ({
      summary: agentSummary(agent, records.get(agent.id) ?? recordOf(undefined)),
      hosted: agent.hosted,
      isPaused: agent.isPaused,
      balances: balances[i] as { ethWei: bigint; usdcWei: bigint },
      liveKeys: counts.liveKeys.get(agent.id) ?? 0,
      unreadNotifications: counts.unread.get(agent.id) ?? 0,
    }));
  }

  /**
   * Registers a hosted agent owned by `owner`, as POST /api/agents/register would with
   * owner_address: 400 for a wallet_address (an owner's agents registered here are hosted: an
   * external agent is owned through its own wallet) or an owner_address other than the session's
   * (a dashboard never registers agents in someone else's name).
   */
  function registerHosted(owner: string, input: RegisterAgentInput) {
    if (input.walletAddress !== undefined) {
      throw badRequest(
        `An owner registers hosted agents here (no wallet_address); an external agent registers with POST ${paths.registerAgent}`,
      );
    }
    if (input.ownerAddress !== undefined && input.ownerAddress.toLowerCase() !== owner) {
      throw badRequest("owner_address must be the signed-in address (or left out)");
    }
    return registerAgent(deps, { ...input, ownerAddress: getAddress(owner) });
  }

  /** The API keys of an owned agent, newest first, live and revoked. */
  async function keysOf(owner: string, agentId: string): Promise<ApiKeyRecord[]> {
    await ownAgent(owner, agentId);
    return db
      .select(keyRecord)
      .from(apiKeys)
      .where(eq(apiKeys.agentId, agentId))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  }

  /**
   * A new key for an owned agent, and with `revokeOthers` every other live one revoked in the same
   * database transaction (a lost key stops working as the new one is answered).
   */
  async function issueKey(owner: string, agentId: string, options: { revokeOthers: boolean }): Promise<IssuedKey> {
    await ownAgent(owner, agentId);
    const { apiKey, row } = newApiKey(agentId);
    const issued = await db.transaction(async (tx) => {
      const revoked = options.revokeOthers
        ? await tx
            .update(apiKeys)
            .set({ revokedAt: new Date() })
            .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)))
            .returning({ id: apiKeys.id })
        : [];
      const [key] = await tx.insert(apiKeys).values(row).returning(keyRecord);
      if (!key) throw new Error("insert returned no row");
      return { key, apiKey, revoked: revoked.length };
    });
    if (issued.revoked > 0) deps.keyHolders?.forgetAgent(agentId);
    return issued;
  }

  /**
   * Revokes one key of an owned agent; the agent guard reads keys on every request, so it stops
   * working at once. Revoking a revoked key changes nothing and answers it as it is (DELETE is
   * idempotent); a key that is not this agent's: 404.
   */
  async function revokeKey(owner: string, agentId: string, keyId: string): Promise<ApiKeyRecord> {
    await ownAgent(owner, agentId);
    const [revoked] = await db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)))
      .returning(keyRecord);
    if (revoked) {
      deps.keyHolders?.forgetAgent(agentId);
      return revoked;
    }
    const [already] = await db
      .select(keyRecord)
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.agentId, agentId)));
    if (!already) throw notFound("API key");
    return already;
  }

  /**
   * A hosted agent registered without owner_address names its owner, once (its own key proves it
   * is the agent). 400 for an external agent (its owner is its wallet) or its own custodial wallet
   * (nobody can sign in as it); 409 when it already has an owner.
   */
  async function adopt(agent: Agent, ownerAddress: Address): Promise<{ agentId: string; ownerAddress: Address }> {
    if (!agent.hosted) {
      throw badRequest("An external agent is owned by its wallet_address; only hosted agents name an owner");
    }
    if (ownerAddress.toLowerCase() === agent.walletAddress.toLowerCase()) {
      throw badRequest("owner_address is the agent's own custodial wallet: nobody can sign in with it");
    }
    const [adopted] = await db
      .update(agents)
      .set({ ownerAddress: ownerAddress.toLowerCase(), updatedAt: new Date() })
      .where(and(eq(agents.id, agent.id), isNull(agents.ownerAddress)))
      .returning({ id: agents.id });
    if (!adopted) throw conflict("This agent already has an owner");
    return { agentId: agent.id, ownerAddress: getAddress(ownerAddress) };
  }

  return { agentsOf, registerHosted, keysOf, issueKey, revokeKey, adopt };
}

export type OwnerUseCases = ReturnType<typeof ownerUseCases>;
