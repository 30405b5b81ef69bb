import { and, eq, getViewSelectedFields, isNull, type SQL, sql } from "drizzle-orm";
import { chainAccountStats } from "../db/chain-views.ts";
import type { Database } from "../db/client.ts";
import { compiled, literalLimit } from "../db/compiled-statement.ts";
import { agents, apiKeys, listings } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { type OwnProfileView, PROFILE_LISTINGS, type PublicAgentView, RECENT_TRANSACTIONS } from "../schemas/agents.ts";
import { type Agent, agentSummary } from "./agent-summary.ts";
import { formatUsdc } from "./money.ts";
import { type AgentRecord, recordOf, sellerRecordOn } from "./track-record.ts";
import { newestTransactionsJson, toTransaction, transactionFactsFromJson } from "./transactions.ts";

/*
 * An agent's profile (GET /api/agents/{id}) and its own, fuller one (GET /api/agents/me): the
 * agent, its indexed record, its newest active listings and its newest transactions, read in one
 * prepared statement (listings and transactions as JSON, wei as text: they do not fit a JSON
 * number). The own profile by API key checks the key in the same statement: one round trip.
 */

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
  stats: typeof chainAccountStats.$inferSelect | null;
  listings: ProfileListingRow[];
  recentTransactions: string;
}

/** An agent's own profile, read with the API key that asked for it (the auth guard's key check). */
export interface OwnProfileByKey {
  keyId: string;
  lastUsedAt: Date | null;
  agent: Agent;
  ownProfile: OwnProfileView;
}

/** The escrow contract a profile's transactions name. */
interface EscrowTarget {
  chainId: number;
  contractAddress: string;
}

/** The parts of a profile, as columns over a row of app.agents. */
function profileColumns(db: Database, chainId: number) {
  return {
    stats: getViewSelectedFields(chainAccountStats),
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
  const record = recordOf(parts.stats ?? undefined);
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

/** The caller's own profile: the public view and what only the agent sees. */
function ownViewOf(agent: Agent, parts: ProfileParts, escrows: EscrowTarget): OwnProfileView {
  const { view, record } = publicViewOf(agent, parts, escrows);
  return {
    ...view,
    is_active: agent.isActive,
    is_paused: agent.isPaused,
    hosted: agent.hosted,
    total_spent_wei: record.spentWei.toString(),
    metadata: agent.metadata,
    webhook_url: agent.webhookUrl,
    reputation: {
      completed_transactions: record.completed,
      total_volume_wei: record.volumeWei.toString(),
      success_rate: record.successRate,
    },
  };
}

/** The profile statements of one database and chain. */
export function agentProfiles(deps: Pick<Deps, "db" | "chain">) {
  const { db, chain } = deps;
  const escrows = { chainId: chain.chainId, contractAddress: chain.deployment.contracts.AgentEscrow.address };
  const columns = profileColumns(db, chain.chainId);

  const byId = compiled(
    db
      .select({ agent: agents, ...columns })
      .from(agents)
      .leftJoin(chainAccountStats, sellerRecordOn(chain.chainId))
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("agent_profile"),
  );
  // The auth guard's key check (auth/require-agent.ts: a live key of an active agent) with the
  // agent's profile read alongside.
  const byKey = compiled(
    db
      .select({ keyId: apiKeys.id, lastUsedAt: apiKeys.lastUsedAt, agent: agents, ...columns })
      .from(apiKeys)
      .innerJoin(agents, eq(agents.id, apiKeys.agentId))
      .leftJoin(chainAccountStats, sellerRecordOn(chain.chainId))
      .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.revokedAt), eq(agents.isActive, true)))
      .limit(literalLimit(1))
      .prepare("own_profile_by_key"),
  );

  return {
    /** The public view of an active agent and its record; undefined when there is none. */
    async publicView(id: string): Promise<{ view: PublicAgentView; record: AgentRecord } | undefined> {
      const [row] = await byId.execute({ id });
      return row && publicViewOf(row.agent, row, escrows);
    },

    /** `agent`'s own profile (its row as the caller has it, the rest read now); undefined once it is inactive. */
    async ownProfile(agent: Agent): Promise<OwnProfileView | undefined> {
      const [row] = await byId.execute({ id: agent.id });
      return row && ownViewOf(agent, row, escrows);
    },

    /** The own profile of the agent holding the live API key of `keyHash`; undefined when none does. */
    async ownProfileByKey(keyHash: string): Promise<OwnProfileByKey | undefined> {
      const [row] = await byKey.execute({ keyHash });
      if (!row) return undefined;
      return {
        keyId: row.keyId,
        lastUsedAt: row.lastUsedAt,
        agent: row.agent,
        ownProfile: ownViewOf(row.agent, row, escrows),
      };
    },
  };
}

export type AgentProfiles = ReturnType<typeof agentProfiles>;
