import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { chainAccountStats } from "../../db/chain-views.ts";
import type { Database } from "../../db/client.ts";
import { compiled, literalLimit } from "../../db/compiled-statement.ts";
import { agentRecords, agents, apiKeys, listings, profileDocs } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { keepProfile, keptProfileIsCurrent, newestProfileChange } from "../reads/kept-profiles.ts";
import {
  type AgentRecord,
  type RecordFigures,
  recordIsCurrent,
  recordOf,
  recordOn,
  walletStatsOn,
} from "../reads/track-record.ts";
import { formatUsdc } from "../shared/money.ts";
import {
  newestTransactionsJson,
  type TransactionView,
  toTransaction,
  transactionFactsFromJson,
} from "../transactions/transactions.ts";
import { refreshAgentRecords } from "./agent-records.ts";
import { type Agent, agentSummary, type DirectoryAgentView } from "./agent-summary.ts";

/*
 * An agent's profile (GET /api/agents/{id}) and its own, fuller one (GET /api/agents/me): the
 * agent, its record (agent-records.ts), its newest active listings and its newest transactions.
 *
 * The public profile is kept as the JSON it answers (domain/reads/kept-profiles.ts): a read is one
 * statement that finds the kept profile and checks it is current. One that is not is built again
 * from the tables in one prepared statement (listings and transactions as JSON, wei as text: they
 * do not fit a JSON number) and kept. The own profile is the public one with the agent's own
 * fields after it (from its row and record), kept and built with it; by API key, the key is checked
 * in the same statement.
 */

/** The agent's newest transactions shown in its profile, as buyer or seller. */
export const RECENT_TRANSACTIONS = 5;
/** Active listings shown in an agent's profile, newest first. */
export const PROFILE_LISTINGS = 20;

/** An agent's public profile (GET /api/agents/{id}). */
export interface PublicAgentView extends DirectoryAgentView {
  recent_transactions: TransactionView[];
  listings: {
    id: string;
    title: string;
    listing_type: string;
    category: string;
    price_wei: string;
    price_usdc: string;
    is_active: boolean;
  }[];
}

/** The agent's own profile (GET /api/agents/me): the public one and its own fields. */
export interface OwnProfileView extends PublicAgentView {
  is_active: boolean;
  is_paused: boolean;
  hosted: boolean;
  total_spent_wei: string;
  metadata: Record<string, unknown>;
  webhook_url: string | null;
  /** Whether it is told of new bounties that match its skills (`bounty.matching`). */
  notify_matching_bounties: boolean;
  /** success_rate 0 to 1, 0 with rated_deals 0 (no rate yet): shared/reputation.ts. */
  reputation: { completed_transactions: number; total_volume_wei: string; success_rate: number; rated_deals: number };
}

/** A listing as a profile lists it, from the profile statement's JSON. */
interface ProfileListingRow {
  id: string;
  title: string;
  listingType: string;
  category: string;
  priceWei: string;
  isActive: boolean;
}

/** What the profile statement reads besides the agent's row. */
interface ProfileParts {
  record: RecordFigures | null;
  listings: ProfileListingRow[];
  recentTransactions: string;
}

/** An agent's own profile, read with the API key that asked for it (the auth guard's key check). */
export interface OwnProfileByKey {
  keyId: string;
  lastUsedAt: Date | null;
  agent: Agent;
  /** The own profile's JSON. */
  ownProfile: string;
}

/** The escrow contract a profile's transactions name. */
interface EscrowTarget {
  chainId: number;
  contractAddress: string;
}

/** The parts of a profile, as columns over a row of app.agents. */
function profileColumns(db: Database, chainId: number) {
  return {
    record: agentRecords,
    recordCurrent: recordIsCurrent,
    // The newest active listings' ids in order from listings_agent_active_created_idx alone, then
    // their rows: selecting the rows at once, Postgres planned for the average agent's few listings
    // and fetched and sorted all of a prolific seller's (5,000 listings: 3.4 ms, against 0.2 ms).
    listings: sql<ProfileListingRow[]>`(
      SELECT coalesce(json_agg(json_build_object('id', own.id, 'title', own.title, 'listingType', own.listing_type,
        'category', own.category, 'priceWei', own.price_wei::text, 'isActive', own.is_active) ORDER BY newest.created_at DESC), '[]'::json)
      FROM (SELECT ${listings.id} AS id, ${listings.createdAt} AS created_at FROM ${listings}
            WHERE ${listings.agentId} = ${agents.id} AND ${listings.isActive}
            ORDER BY ${listings.createdAt} DESC LIMIT ${sql.raw(String(PROFILE_LISTINGS))}) AS newest
      JOIN ${listings} AS own ON own.id = newest.id)`,
    recentTransactions: newestTransactionsJson(db, chainId, agents.id, RECENT_TRANSACTIONS) as SQL<string>,
  };
}

/** The public view of an agent from its row and the profile statement's parts. */
function publicViewOf(
  agent: Agent,
  parts: ProfileParts,
  escrows: EscrowTarget,
): { view: PublicAgentView; record: AgentRecord } {
  const record = recordOf(parts.record);
  const view = {
    ...agentSummary(agent, record),
    recent_transactions: transactionFactsFromJson(parts.recentTransactions).map((row) => toTransaction(row, escrows)),
    listings: parts.listings.map((listing) => ({
      id: listing.id,
      title: listing.title,
      listing_type: listing.listingType,
      category: listing.category,
      price_wei: listing.priceWei,
      price_usdc: formatUsdc(listing.priceWei),
      is_active: listing.isActive,
    })),
  };
  return { view, record };
}

/** The fields of the own profile that the public one lacks, in the order they follow it. */
function ownFieldsOf(agent: Agent, record: AgentRecord): Omit<OwnProfileView, keyof PublicAgentView> {
  return {
    is_active: agent.isActive,
    is_paused: agent.isPaused,
    hosted: agent.hosted,
    total_spent_wei: record.spentWei.toString(),
    metadata: agent.metadata,
    webhook_url: agent.webhookUrl,
    notify_matching_bounties: agent.notifyMatchingBounties,
    reputation: {
      completed_transactions: record.completed,
      total_volume_wei: record.volumeWei.toString(),
      success_rate: record.successRate ?? 0,
      rated_deals: record.ratedDeals,
    },
  };
}

/** A profile's public JSON and its own fields' JSON, as kept. */
interface KeptProfile {
  json: string;
  ownFields: string;
}

/** The kept profile of a statement's row while it is current; undefined when it must be built again. */
function keptIfCurrent(row: { body: string | null; ownFields: string | null; current: boolean | null }) {
  return row.current && row.body !== null && row.ownFields !== null
    ? { json: row.body, ownFields: row.ownFields }
    : undefined;
}

/**
 * The own profile's JSON: the public profile's and the own fields' (two objects' text, kept), the
 * own fields after the public ones, the text not parsed and written again.
 */
function ownJsonOf(kept: KeptProfile): string {
  return `${kept.json.slice(0, kept.json.lastIndexOf("}"))},${kept.ownFields.slice(1)}`;
}

/** The profile statements of one database and chain (its id and the escrow contract its transactions name). */
export function agentProfiles(deps: { db: Database; chain: Pick<Deps["chain"], "chainId" | "deployment"> }) {
  const { db, chain } = deps;
  const escrows = { chainId: chain.chainId, contractAddress: chain.deployment.contracts.AgentEscrow.address };
  const columns = profileColumns(db, chain.chainId);
  const current = keptProfileIsCurrent(escrows.contractAddress);

  // A profile built from the tables, with what it is built as of (domain/reads/kept-profiles.ts).
  const build = compiled(
    db
      .select({ agent: agents, ...columns, builtVersion: newestProfileChange })
      .from(agents)
      .leftJoin(agentRecords, recordOn)
      .leftJoin(chainAccountStats, walletStatsOn(chain.chainId))
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("agent_profile"),
  );
  // The kept profile of an active agent and whether it is current: a public read needs no more.
  const keptPublicById = compiled(
    db
      .select({ body: profileDocs.body, current })
      .from(agents)
      .leftJoin(chainAccountStats, walletStatsOn(chain.chainId))
      .leftJoin(profileDocs, eq(profileDocs.agentId, agents.id))
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("kept_public_agent_profile"),
  );
  // The same with the own fields (a session's GET /me).
  const keptOwnById = compiled(
    db
      .select({ body: profileDocs.body, ownFields: profileDocs.ownFields, current })
      .from(agents)
      .leftJoin(chainAccountStats, walletStatsOn(chain.chainId))
      .leftJoin(profileDocs, eq(profileDocs.agentId, agents.id))
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("kept_own_profile"),
  );
  // The auth guard's key check (auth/require-agent.ts: a live key of an active agent) with the
  // agent's kept own profile read alongside.
  const keptByKey = compiled(
    db
      .select({
        keyId: apiKeys.id,
        lastUsedAt: apiKeys.lastUsedAt,
        agent: agents,
        body: profileDocs.body,
        ownFields: profileDocs.ownFields,
        current,
      })
      .from(apiKeys)
      .innerJoin(agents, eq(agents.id, apiKeys.agentId))
      .leftJoin(chainAccountStats, walletStatsOn(chain.chainId))
      .leftJoin(profileDocs, eq(profileDocs.agentId, agents.id))
      .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.revokedAt), eq(agents.isActive, true)))
      .limit(literalLimit(1))
      .prepare("kept_own_profile_by_key"),
  );

  /**
   * Builds the public profile of an active agent and its own fields from the tables and keeps them;
   * undefined when there is none.
   */
  async function built(id: string): Promise<KeptProfile | undefined> {
    let [row] = await build.execute({ id });
    if (!row) return undefined;
    // A record whose wallet's escrows moved since it was counted is counted again first.
    if (!row.recordCurrent) {
      await refreshAgentRecords(db, chain.chainId, { agentIds: [id] });
      [row] = await build.execute({ id });
      if (!row) return undefined;
    }
    const { view, record } = publicViewOf(row.agent, row, escrows);
    const json = JSON.stringify(view);
    const ownFields = JSON.stringify(ownFieldsOf(row.agent, record));
    await keepProfile(db, {
      agentId: id,
      body: json,
      ownFields,
      builtVersion: row.builtVersion,
      // The escrow event the record was counted as of: a later one builds the profile again.
      lastEvent: row.record?.lastEvent ?? null,
      escrowContract: escrows.contractAddress,
    });
    return { json, ownFields };
  }

  /** The public profile's JSON: the kept one while it is current, else built again. */
  async function publicJson(id: string): Promise<string | undefined> {
    const [row] = await keptPublicById.execute({ id });
    if (!row) return undefined;
    if (row.current && row.body !== null) return row.body;
    return (await built(id))?.json;
  }

  return {
    /** The public view of an active agent, as JSON; undefined when there is none. */
    publicJson,

    /** The public view of an active agent, as an object; undefined when there is none. */
    async publicView(id: string): Promise<PublicAgentView | undefined> {
      const json = await publicJson(id);
      return json === undefined ? undefined : (JSON.parse(json) as PublicAgentView);
    },

    /** The own profile of an active agent, as JSON; undefined when there is none. */
    async ownProfile(id: string): Promise<string | undefined> {
      const [row] = await keptOwnById.execute({ id });
      if (!row) return undefined;
      const profile = keptIfCurrent(row) ?? (await built(id));
      return profile && ownJsonOf(profile);
    },

    /** The own profile of the agent holding the live API key of `keyHash`; undefined when none does. */
    async ownProfileByKey(keyHash: string): Promise<OwnProfileByKey | undefined> {
      const [row] = await keptByKey.execute({ keyHash });
      if (!row) return undefined;
      const profile = keptIfCurrent(row) ?? (await built(row.agent.id));
      if (!profile) return undefined;
      return { keyId: row.keyId, lastUsedAt: row.lastUsedAt, agent: row.agent, ownProfile: ownJsonOf(profile) };
    },
  };
}

export type AgentProfiles = ReturnType<typeof agentProfiles>;
