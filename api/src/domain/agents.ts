import { and, eq, getViewSelectedFields, sql } from "drizzle-orm";
import type { Address } from "viem";
import { newApiKey } from "../auth/api-keys.ts";
import { createCustodialWallet } from "../chain/custodial-wallet.ts";
import { chainAccountStats } from "../db/chain-views.ts";
import { compiled } from "../db/compiled-statement.ts";
import { agents, apiKeys, listings } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { newWebhookSecret } from "../notifications/webhook-secret.ts";
import { checkWebhookUrl, WebhookUrlError } from "../notifications/webhook-url.ts";
import { type OwnProfileView, PROFILE_LISTINGS, type PublicAgentView, RECENT_TRANSACTIONS } from "../schemas/agents.ts";
import { agentDirectory } from "./agent-directory.ts";
import { agentKeys } from "./agent-keys.ts";
import { type Agent, agentSummary } from "./agent-summary.ts";
import { badRequest, conflict, notFound } from "./errors.ts";
import { formatUsdc } from "./money.ts";
import { type AgentRecord, recordOf, sellerRecordOn } from "./track-record.ts";
import { newestTransactionsJson, toTransaction, transactionFactsFromJson } from "./transactions.ts";

export type { Agent };

/*
 * Agents: registration (a hosted agent gets its custodial wallet here), the own profile and its
 * changes, the public view, the directory, API keys, and the balance of any address.
 */

export interface RegisterAgentInput {
  name?: string;
  /** External (BYOB) agents: their own wallet. Without it the agent is hosted. */
  walletAddress?: Address;
  /** `false` without a wallet address, or `true` with one, is refused. */
  hosted?: boolean;
  /** Hosted agents: the wallet whose session may act for the agent. */
  ownerAddress?: Address;
  bio?: string;
  skills?: string[];
  referralSource?: string;
}

export interface ProfileChanges {
  name?: string;
  bio?: string | null;
  skills?: string[];
  isPaused?: boolean;
  metadata?: Record<string, unknown>;
  webhookUrl?: string | null;
}

/**
 * Registers an agent and its first API key (answered once). Without a wallet address the agent
 * is hosted: the service creates its custodial wallet. Its own use case, and the owner's
 * registration of a hosted agent (domain/owners.ts).
 */
export async function registerAgent(
  deps: Pick<Deps, "db" | "config">,
  input: RegisterAgentInput,
): Promise<{ agent: Agent; apiKey: string }> {
  const { db, config } = deps;
  const { name } = input;
  if (!name) throw badRequest("agent_name is required");
  const hosted = !input.walletAddress;
  if (hosted && input.hosted === false) {
    throw badRequest("An external agent (hosted: false) needs its wallet_address");
  }
  if (!hosted && input.hosted === true) throw badRequest("An agent with its own wallet_address cannot be hosted");
  if (input.ownerAddress && !hosted) {
    throw badRequest("owner_address is for hosted agents; an external agent's owner is its wallet_address");
  }
  const custodial = hosted ? createCustodialWallet(config.masterKey) : undefined;
  const walletAddress = input.walletAddress ?? (custodial?.address as string);
  const [existing] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(sql`lower(${agents.walletAddress}) = ${walletAddress.toLowerCase()}`);
  if (existing) throw conflict("An agent with this wallet already exists");
  let apiKey = "";
  const agent = await db
    .transaction(async (tx) => {
      const [created] = await tx
        .insert(agents)
        .values({
          name,
          walletAddress,
          hosted,
          encryptedPrivateKey: custodial?.encryptedPrivateKey ?? null,
          ownerAddress: input.ownerAddress?.toLowerCase() ?? null,
          bio: input.bio ?? null,
          skills: input.skills ?? [],
          referralSource: input.referralSource ?? null,
        })
        .returning();
      if (!created) throw new Error("insert returned no row");
      const key = newApiKey(created.id);
      await tx.insert(apiKeys).values(key.row);
      apiKey = key.apiKey;
      return created;
    })
    .catch((error: unknown) => {
      // Two registrations of one wallet at once: the unique index decides.
      if ((error as { cause?: { code?: string } }).cause?.code === "23505") {
        throw conflict("An agent with this wallet already exists");
      }
      throw error;
    });
  return { agent, apiKey };
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

export function agentUseCases(deps: Deps) {
  const { db, config, chain } = deps;
  const escrows = { chainId: chain.chainId, contractAddress: chain.deployment.contracts.AgentEscrow.address };

  /**
   * An active agent with its indexed record, its newest active listings and its newest
   * transactions, in one prepared statement (listings and transactions as JSON, wei as text: they
   * do not fit a JSON number).
   */
  const profileOf = compiled(
    db
      .select({
        agent: agents,
        stats: getViewSelectedFields(chainAccountStats),
        listings: sql<ProfileListingRow[]>`(
          SELECT coalesce(json_agg(json_build_object('id', own.id, 'title', own.title, 'listingType', own.listing_type,
            'category', own.category, 'priceWei', own.price_wei::text, 'isActive', own.is_active) ORDER BY own.created_at DESC), '[]'::json)
          FROM (SELECT * FROM ${listings} WHERE ${listings.agentId} = ${agents.id} AND ${listings.isActive}
                ORDER BY ${listings.createdAt} DESC LIMIT ${sql.raw(String(PROFILE_LISTINGS))}) AS own)`,
        recentTransactions: newestTransactionsJson(db, chain.chainId, agents.id, RECENT_TRANSACTIONS),
      })
      .from(agents)
      .leftJoin(chainAccountStats, sellerRecordOn(chain.chainId))
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("agent_profile"),
  );
  const activeAgentById = compiled(
    db
      .select()
      .from(agents)
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("active_agent"),
  );

  /**
   * The public view of an active agent and its record (404 when there is none). `known` is the
   * agent's row when the caller has it already (its own profile).
   */
  async function publicView(id: string, known?: Agent): Promise<{ view: PublicAgentView; record: AgentRecord }> {
    const [profile] = await profileOf.execute({ id });
    if (!profile) throw notFound("Agent");
    const record = recordOf(profile.stats ?? undefined);
    const view = {
      ...agentSummary(known ?? profile.agent, record),
      recent_transactions: transactionFactsFromJson(profile.recentTransactions).map((row) =>
        toTransaction(row, escrows),
      ),
      listings: profile.listings.map((listing) => ({
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

  /** The caller's full profile. */
  async function ownProfile(agent: Agent): Promise<OwnProfileView> {
    const { view, record } = await publicView(agent.id, agent);
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

  /** An active agent by id; 404 otherwise. */
  async function activeAgent(id: string): Promise<Agent> {
    const [agent] = await activeAgentById.execute({ id });
    if (!agent) throw notFound("Agent");
    return agent;
  }

  /**
   * Changes the caller's profile and answers it. A new webhook URL must be allowed; the first one
   * gets the signing secret, answered only this once.
   */
  async function updateProfile(
    agent: Agent,
    changes: ProfileChanges,
  ): Promise<{ profile: OwnProfileView; webhookSecret?: string }> {
    let webhookSecret: ReturnType<typeof newWebhookSecret> | undefined;
    if (typeof changes.webhookUrl === "string") {
      await checkWebhookUrl(changes.webhookUrl, config.webhooks.allowPrivateAddresses).catch((error: unknown) => {
        throw error instanceof WebhookUrlError ? badRequest(error.message) : error;
      });
      if (!agent.webhookSecretEncrypted) webhookSecret = newWebhookSecret(agent.id, config.masterKey);
    }
    const set = {
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.bio !== undefined && { bio: changes.bio }),
      ...(changes.skills !== undefined && { skills: changes.skills }),
      ...(changes.isPaused !== undefined && { isPaused: changes.isPaused }),
      ...(changes.metadata !== undefined && { metadata: changes.metadata }),
      ...(changes.webhookUrl !== undefined && { webhookUrl: changes.webhookUrl }),
      ...(webhookSecret && { webhookSecretEncrypted: webhookSecret.sealed }),
    };
    let current = agent;
    if (Object.keys(set).length > 0) {
      const [updated] = await db
        .update(agents)
        .set({ ...set, updatedAt: new Date() })
        .where(eq(agents.id, agent.id))
        .returning();
      if (!updated) throw notFound("Agent");
      current = updated;
      // Names and pauses show in listing browse answers.
      deps.readCache?.invalidate();
    }
    return { profile: await ownProfile(current), ...(webhookSecret && { webhookSecret: webhookSecret.secret }) };
  }

  return {
    register: (input: RegisterAgentInput) => registerAgent(deps, input),
    ownProfile,
    updateProfile,
    activeAgent,
    /** The public view of an active agent; 404 otherwise. */
    async publicProfile(id: string): Promise<PublicAgentView> {
      return (await publicView(id)).view;
    },
    /** ETH and USDC balance of an address, read from the chain. */
    balance(address: Address): Promise<{ ethWei: bigint; usdcWei: bigint }> {
      return chain.balances(address);
    },
    ...agentKeys(db),
    directory: agentDirectory(db, chain.chainId),
  };
}

export type AgentUseCases = ReturnType<typeof agentUseCases>;
