import { and, eq, sql } from "drizzle-orm";
import type { Address } from "viem";
import { newApiKey } from "../../auth/api-keys.ts";
import { createCustodialWallet } from "../../chain/custodial-wallet.ts";
import { compiled } from "../../db/compiled-statement.ts";
import { agents, apiKeys } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { webhookUrlChanged } from "../../notifications/webhook-endpoints.ts";
import { newWebhookSecret } from "../../notifications/webhook-secret.ts";
import { checkWebhookUrl, WebhookUrlError } from "../../notifications/webhook-url.ts";
import { badRequest, forbidden, notFound, WalletRegisteredError } from "../shared/errors.ts";
import { agentDirectory } from "./agent-directory.ts";
import { agentKeys } from "./agent-keys.ts";
import { agentProfiles, type PublicAgentView } from "./agent-profile.ts";
import type { Agent } from "./agent-summary.ts";
import { refusePlatformWallet } from "./platform-wallets.ts";

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
  /** The webhook, set at registration as a profile change sets it (its secret answered once). */
  webhookUrl?: string;
  /** Told of new bounties that match its skills (`bounty.matching`); true when absent. */
  notifyMatchingBounties?: boolean;
}

export interface ProfileChanges {
  name?: string;
  bio?: string | null;
  skills?: string[];
  isPaused?: boolean;
  metadata?: Record<string, unknown>;
  webhookUrl?: string | null;
  notifyMatchingBounties?: boolean;
}

/**
 * A wallet some agent already has (409 `wallet_registered`). For an external wallet the answer says
 * how its holder takes the agent over: by signing the key challenge, whoever registered it first.
 */
function walletRegistered(walletAddress: string, hosted: boolean): WalletRegisteredError {
  return new WalletRegisteredError(walletAddress, !hosted);
}

/** 400 unless `url` is a webhook URL the service may call (webhook-url.ts). */
async function checkWebhook(url: string, config: Pick<Deps["config"], "webhooks">): Promise<void> {
  await checkWebhookUrl(url, config.webhooks.allowPrivateAddresses).catch((error: unknown) => {
    throw error instanceof WebhookUrlError ? badRequest(error.message) : error;
  });
}

/**
 * Registers an agent and its first API key (answered once). Without a wallet address the agent
 * is hosted: the service creates its custodial wallet. An external agent's wallet may not be the
 * platform's own (domain/agents/platform-wallets.ts). Its own use case, and the owner's registration of a
 * hosted agent (domain/owners/owners.ts). A webhook URL is checked as a profile change checks it,
 * and its signing secret is answered with the key, this once.
 */
export async function registerAgent(
  deps: Pick<Deps, "db" | "config" | "chain" | "relayer" | "arbiterRelayer">,
  input: RegisterAgentInput,
): Promise<{ agent: Agent; apiKey: string; webhookSecret?: string }> {
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
  if (input.walletAddress) await refusePlatformWallet(deps, input.walletAddress);
  if (input.webhookUrl !== undefined) await checkWebhook(input.webhookUrl, config);
  const id = crypto.randomUUID();
  const webhookSecret = input.webhookUrl !== undefined ? newWebhookSecret(id, config.masterKey) : undefined;
  const custodial = hosted ? createCustodialWallet(config.masterKey) : undefined;
  const walletAddress = input.walletAddress ?? (custodial?.address as string);
  const [existing] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(sql`lower(${agents.walletAddress}) = ${walletAddress.toLowerCase()}`);
  if (existing) throw walletRegistered(walletAddress, hosted);
  let apiKey = "";
  const agent = await db
    .transaction(async (tx) => {
      const [created] = await tx
        .insert(agents)
        .values({
          id,
          name,
          walletAddress,
          hosted,
          encryptedPrivateKey: custodial?.encryptedPrivateKey ?? null,
          ownerAddress: input.ownerAddress?.toLowerCase() ?? null,
          bio: input.bio ?? null,
          skills: input.skills ?? [],
          referralSource: input.referralSource ?? null,
          webhookUrl: input.webhookUrl ?? null,
          webhookSecretEncrypted: webhookSecret?.sealed ?? null,
          notifyMatchingBounties: input.notifyMatchingBounties ?? true,
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
        throw walletRegistered(walletAddress, hosted);
      }
      throw error;
    });
  return { agent, apiKey, ...(webhookSecret && { webhookSecret: webhookSecret.secret }) };
}

export function agentUseCases(deps: Deps) {
  const { db, config, chain } = deps;
  const profiles = agentProfiles(deps);
  const activeAgentById = compiled(
    db
      .select()
      .from(agents)
      .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
      .prepare("active_agent"),
  );

  /** The caller's full profile, as JSON (404 once the agent is inactive). */
  async function ownProfile(agentId: string): Promise<string> {
    const profile = await profiles.ownProfile(agentId);
    if (!profile) throw notFound("Agent");
    return profile;
  }

  /** An active agent by id; 404 otherwise. */
  async function activeAgent(id: string): Promise<Agent> {
    const [agent] = await activeAgentById.execute({ id });
    if (!agent) throw notFound("Agent");
    return agent;
  }

  /**
   * Changes the caller's profile and answers it. A new webhook URL must be allowed; the first one
   * gets the signing secret, answered only this once. Setting the URL resumes a paused webhook.
   */
  async function updateProfile(
    agent: Agent,
    changes: ProfileChanges,
  ): Promise<{ profile: string; webhookSecret?: string }> {
    let webhookSecret: ReturnType<typeof newWebhookSecret> | undefined;
    if (typeof changes.webhookUrl === "string") {
      await checkWebhook(changes.webhookUrl, config);
      if (!agent.webhookSecretEncrypted) webhookSecret = newWebhookSecret(agent.id, config.masterKey);
    }
    const set = {
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.bio !== undefined && { bio: changes.bio }),
      ...(changes.skills !== undefined && { skills: changes.skills }),
      ...(changes.isPaused !== undefined && { isPaused: changes.isPaused }),
      ...(changes.metadata !== undefined && { metadata: changes.metadata }),
      ...(changes.webhookUrl !== undefined && { webhookUrl: changes.webhookUrl }),
      ...(changes.notifyMatchingBounties !== undefined && { notifyMatchingBounties: changes.notifyMatchingBounties }),
      ...(webhookSecret && { webhookSecretEncrypted: webhookSecret.sealed }),
    };
    if (Object.keys(set).length > 0) {
      const updated = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(agents)
          .set({ ...set, updatedAt: new Date() })
          .where(eq(agents.id, agent.id))
          .returning({ id: agents.id });
        // Setting the URL (the same one too) resumes a paused webhook; removing it ends its queue.
        if (row && changes.webhookUrl !== undefined) await webhookUrlChanged(tx, agent.id, changes.webhookUrl);
        return row;
      });
      if (!updated) throw notFound("Agent");
      // Names and pauses show in listing browse answers.
      deps.readCache?.invalidate();
    }
    // Read after the change: it is a change of the kept profile, built again with it.
    return { profile: await ownProfile(agent.id), ...(webhookSecret && { webhookSecret: webhookSecret.secret }) };
  }

  return {
    register: (input: RegisterAgentInput) => registerAgent(deps, input),
    ownProfile,
    /**
     * `updateProfile` of the agent the caller names by id: its own only. Another agent's id is 403,
     * an id no active agent has 404.
     */
    async updateProfileById(agent: Agent, id: string, changes: ProfileChanges) {
      if (id !== agent.id) {
        await activeAgent(id);
        throw forbidden("An agent may change only its own profile");
      }
      return updateProfile(agent, changes);
    },
    /** The own profile of the agent holding a live API key, read with the key's check (GET /me). */
    ownProfileByKey: profiles.ownProfileByKey,
    updateProfile,
    activeAgent,
    /** The public view of an active agent; 404 otherwise. */
    async publicProfile(id: string): Promise<PublicAgentView> {
      const profile = await profiles.publicView(id);
      if (!profile) throw notFound("Agent");
      return profile;
    },
    /** The public view of an active agent, as JSON; 404 otherwise. */
    async publicProfileJson(id: string): Promise<string> {
      const profile = await profiles.publicJson(id);
      if (!profile) throw notFound("Agent");
      return profile;
    },
    /** ETH and USDC balance of an address, read from the chain. */
    balance(address: Address): Promise<{ ethWei: bigint; usdcWei: bigint }> {
      return chain.balances(address);
    },
    ...agentKeys(db, (agentId) => deps.keyHolders?.forgetAgent(agentId)),
    directory: agentDirectory(db),
  };
}

export type AgentUseCases = ReturnType<typeof agentUseCases>;
