import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, getViewSelectedFields, isNull, or, type SQL, sql } from "drizzle-orm";
import { getAddress, verifyMessage } from "viem";
import { generateApiKey, hashApiKey } from "../auth/api-keys.ts";
import { requireAgent } from "../auth/require-agent.ts";
import { createCustodialWallet } from "../chain/custodial-wallet.ts";
import { chainAccountStats } from "../db/chain-views.ts";
import { decodeCursor, encodeCursor, isTimestampPosition, timestampPosition } from "../db/cursor.ts";
import { agents, apiKeys, keyChallenges, listings } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { badRequest, conflict, notFound, unauthorized } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import { balanceAnswer, formatUsdc } from "../domain/money.ts";
import { type AgentRecord, completedSql, recordOf, volumeSql } from "../domain/track-record.ts";
import { prepareRecentTransactions, toTransaction } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { clientIp } from "../http/request.ts";
import { newWebhookSecret } from "../notifications/webhook-secret.ts";
import { checkWebhookUrl, WebhookUrlError } from "../notifications/webhook-url.ts";
import { rateLimit } from "../rate-limit/middleware.ts";
import { Address, BalanceFields, bearerSecurity, Cursor, errorResponses, Limit, Uuid } from "../schemas/common.ts";
import { Transaction } from "../schemas/transaction.ts";

/*
 * /api/agents: register, own profile, public view, directory, balance by address, key rotation.
 */

const HOUR_MS = 60 * 60 * 1000;
const CHALLENGE_TTL_MS = 10 * 60 * 1000;
const RECENT_TRANSACTIONS = 5;
/** Active listings shown in an agent's profile, newest first. */
const PROFILE_LISTINGS = 20;
const KEY_WARNING = "Save this API key now: it is shown once and cannot be retrieved later.";

const Name = z.string().trim().min(1).max(100);
const Skills = z.array(z.string().trim().min(1).max(50)).max(30);
const Metadata = z.record(z.string(), z.unknown()).refine((value) => JSON.stringify(value).length <= 16_384, {
  message: "must serialise to at most 16 KB",
});

const RegisterBody = z
  .object({
    agent_name: Name.optional(),
    name: Name.optional().openapi({ description: "Alias of agent_name" }),
    wallet_address: Address.optional().openapi({ description: "External (BYOB) agents: their own wallet" }),
    hosted: z.boolean().optional().openapi({
      description:
        "Without wallet_address the agent is hosted (the default): the service creates its custodial wallet. `false` without a wallet_address is refused",
    }),
    bio: z.string().max(2_000).optional(),
    skills: Skills.optional(),
    referral_source: z.string().max(200).optional(),
    owner_address: Address.optional().openapi({
      description: "Hosted agents: the wallet whose Sign-In with Ethereum session may act for this agent",
    }),
  })
  .openapi("RegisterAgent");

const AgentSummary = z.object({
  id: Uuid,
  name: z.string(),
  wallet_address: z.string(),
  hosted: z.boolean(),
  created_at: z.string(),
});

const RegisterResponse = z
  .object({ success: z.boolean(), agent: AgentSummary, api_key: z.string(), warning: z.string() })
  .openapi("RegisterAgentResponse");

const ListingSummary = z.object({
  id: Uuid,
  title: z.string(),
  listing_type: z.string(),
  category: z.string(),
  price_wei: z.string(),
  price_usdc: z.string(),
  is_active: z.boolean(),
});

const PublicAgent = z
  .object({
    id: Uuid,
    name: z.string(),
    wallet_address: z.string(),
    transaction_count: z.number().int(),
    total_earned_wei: z.string(),
    reputation_tier: z.string(),
    bio: z.string().nullable(),
    skills: z.array(z.string()),
    created_at: z.string(),
    recent_transactions: z
      .array(Transaction)
      .openapi({ description: `The agent's ${RECENT_TRANSACTIONS} newest transactions, as buyer or seller` }),
    listings: z.array(ListingSummary),
  })
  .openapi("PublicAgent");

const OwnProfile = PublicAgent.extend({
  is_active: z.boolean(),
  is_paused: z.boolean(),
  hosted: z.boolean(),
  total_spent_wei: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  webhook_url: z.string().nullable(),
  reputation: z.object({
    completed_transactions: z.number().int(),
    total_volume_wei: z.string(),
    success_rate: z.number(),
  }),
}).openapi("OwnProfile");

const PatchMeBody = z
  .object({
    name: Name.optional(),
    bio: z.string().max(2_000).nullable().optional(),
    skills: Skills.optional(),
    is_paused: z.boolean().optional(),
    metadata: Metadata.optional(),
    webhook_url: z
      .string()
      .url()
      .max(2_000)
      .refine((url) => /^https?:\/\//.test(url), { message: "must be an http(s) URL" })
      .nullable()
      .optional(),
  })
  .openapi("PatchOwnProfile");

const Balance = z
  .object({
    address: z.string(),
    ...BalanceFields,
  })
  .openapi("Balance");

const DirectoryQuery = z.strictObject({
  keyword: z.string().trim().min(1).max(100).optional(),
  skill: z.string().trim().min(1).max(50).optional(),
  sort: z.enum(["newest", "reputation", "volume"]).default("newest"),
  limit: Limit,
  cursor: Cursor,
});

const RotateKeyBody = z
  .object({
    address: Address,
    nonce: z.string().min(1).max(100),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "must be 0x-prefixed hex"),
  })
  .openapi("RotateKeyWithSignature");

type DirectorySort = z.infer<typeof DirectoryQuery>["sort"];
type DirectoryPosition =
  | { sort: "newest"; at: string; id: string }
  | { sort: "reputation"; completed: string; volume: string; id: string }
  | { sort: "volume"; volume: string; id: string };

/** The keyset position of a directory cursor; 400 unless it was made for this sort. */
function directoryPosition(cursor: string, sort: DirectorySort): DirectoryPosition {
  const value = decodeCursor(cursor);
  const count = (v: string | undefined): v is string => v !== undefined && /^\d{1,9}$/.test(v);
  const wei = (v: string | undefined): v is string => v !== undefined && /^\d{1,78}$/.test(v);
  // Cursors made before sorts existed carry no `sort`: they are newest-first.
  if ((value.sort ?? "newest") === sort && isUuid(value.id)) {
    const { id, at, completed, volume } = value;
    if (sort === "newest" && isTimestampPosition(at)) return { sort, at, id };
    if (sort === "reputation" && count(completed) && wei(volume)) return { sort, completed, volume, id };
    if (sort === "volume" && wei(volume)) return { sort, volume, id };
  }
  throw badRequest("Invalid cursor");
}

/** The public fields of an agent that every view of it shares (profile, public view, directory). */
function agentSummary(agent: typeof agents.$inferSelect, record: AgentRecord) {
  return {
    id: agent.id,
    name: agent.name,
    wallet_address: agent.walletAddress,
    transaction_count: record.transactionCount,
    total_earned_wei: record.earnedWei.toString(),
    reputation_tier: record.tier,
    bio: agent.bio,
    skills: agent.skills,
    created_at: agent.createdAt.toISOString(),
  };
}

/** The message an external agent signs (EIP-191) to prove its wallet. */
export function keyChallengeMessage(address: string, nonce: string): string {
  return `Agent marketplace: rotate the API key of the agent with wallet ${address}. Nonce: ${nonce}`;
}

export function agentRoutes(deps: Deps) {
  const { db, config, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const auth = requireAgent(db);
  const recentTransactions = prepareRecentTransactions(db, chain.chainId, RECENT_TRANSACTIONS);
  const registrationLimit = rateLimit(deps.rateLimitStore, {
    name: "registrations",
    limit: config.registrationsPerHour,
    windowMs: HOUR_MS,
    keyOf: (c) => clientIp(c, config.trustProxy),
  });

  async function newKey(agentId: string, revokeOthers: boolean) {
    const apiKey = generateApiKey();
    await db.transaction(async (tx) => {
      if (revokeOthers) {
        await tx
          .update(apiKeys)
          .set({ revokedAt: new Date() })
          .where(and(eq(apiKeys.agentId, agentId), isNull(apiKeys.revokedAt)));
      }
      await tx.insert(apiKeys).values({ agentId, keyHash: hashApiKey(apiKey) });
    });
    return apiKey;
  }

  const escrows = { chainId: chain.chainId, contractAddress: chain.deployment.contracts.AgentEscrow.address };

  const activeListings = db
    .select({
      id: listings.id,
      title: listings.title,
      listingType: listings.listingType,
      category: listings.category,
      priceWei: listings.priceWei,
      isActive: listings.isActive,
    })
    .from(listings)
    .where(and(eq(listings.agentId, sql.placeholder("agentId")), eq(listings.isActive, true)))
    .orderBy(desc(listings.createdAt))
    .limit(PROFILE_LISTINGS)
    .prepare("profile_listings");
  const accountStats = db
    .select()
    .from(chainAccountStats)
    .where(and(eq(chainAccountStats.chainId, chain.chainId), eq(chainAccountStats.address, sql.placeholder("address"))))
    .prepare("profile_account_stats");
  const activeAgent = db
    .select()
    .from(agents)
    .where(and(eq(agents.id, sql.placeholder("id")), eq(agents.isActive, true)))
    .prepare("active_agent");

  /** The public view and the agent's record: three reads in parallel, each a prepared statement. */
  async function publicView(agent: typeof agents.$inferSelect) {
    const [stats, own, recent] = await Promise.all([
      accountStats.execute({ address: agent.walletAddress.toLowerCase() }),
      activeListings.execute({ agentId: agent.id }),
      recentTransactions.execute({ agentId: agent.id }),
    ]);
    const record = recordOf(stats[0]);
    const view = {
      ...agentSummary(agent, record),
      recent_transactions: recent.map((row) => toTransaction(row, escrows)),
      listings: own.map((listing) => ({
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

  async function ownProfile(agent: typeof agents.$inferSelect) {
    const { view, record } = await publicView(agent);
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

  app.use("/register", registrationLimit);

  app.openapi(
    createRoute({
      method: "post",
      path: "/register",
      tags: ["Agents"],
      summary: "Register an agent",
      description:
        'With `wallet_address` the agent is external (BYOB). Without it the agent is hosted: the service creates its custodial wallet, signs its moves and pays their gas (`{ "name", "bio" }` is enough). The API key is shown once.',
      request: { body: { required: true, content: { "application/json": { schema: RegisterBody } } } },
      responses: {
        201: { description: "Registered", content: { "application/json": { schema: RegisterResponse } } },
        ...errorResponses(400, 409, 413, 429),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const name = body.agent_name ?? body.name;
      if (!name) throw badRequest("agent_name is required");
      const hosted = !body.wallet_address;
      if (hosted && body.hosted === false) {
        throw badRequest("An external agent (hosted: false) needs its wallet_address");
      }
      if (!hosted && body.hosted === true) throw badRequest("An agent with its own wallet_address cannot be hosted");
      if (body.owner_address && !hosted) {
        throw badRequest("owner_address is for hosted agents; an external agent's owner is its wallet_address");
      }
      const custodial = hosted ? createCustodialWallet(config.masterKey) : undefined;
      const walletAddress = body.wallet_address ?? (custodial?.address as string);
      const [existing] = await db
        .select({ id: agents.id })
        .from(agents)
        .where(sql`lower(${agents.walletAddress}) = ${walletAddress.toLowerCase()}`);
      if (existing) throw conflict("An agent with this wallet already exists");
      const apiKey = generateApiKey();
      const agent = await db
        .transaction(async (tx) => {
          const [created] = await tx
            .insert(agents)
            .values({
              name,
              walletAddress,
              hosted,
              encryptedPrivateKey: custodial?.encryptedPrivateKey ?? null,
              ownerAddress: body.owner_address?.toLowerCase() ?? null,
              bio: body.bio ?? null,
              skills: body.skills ?? [],
              referralSource: body.referral_source ?? null,
            })
            .returning();
          if (!created) throw new Error("insert returned no row");
          await tx.insert(apiKeys).values({ agentId: created.id, keyHash: hashApiKey(apiKey) });
          return created;
        })
        .catch((error: unknown) => {
          // Two registrations of one wallet at once: the unique index decides.
          if ((error as { cause?: { code?: string } }).cause?.code === "23505") {
            throw conflict("An agent with this wallet already exists");
          }
          throw error;
        });
      c.get("logger").info({ agent_id: agent.id, hosted }, "agent registered");
      return c.json(
        {
          success: true,
          agent: {
            id: agent.id,
            name: agent.name,
            wallet_address: agent.walletAddress,
            hosted: agent.hosted,
            created_at: agent.createdAt.toISOString(),
          },
          api_key: apiKey,
          warning: KEY_WARNING,
        },
        201,
      );
    },
  );

  // "/me/*" also matches "/me" itself: one middleware, one key lookup per request.
  app.use("/me/*", auth);

  app.openapi(
    createRoute({
      method: "get",
      path: "/me",
      tags: ["Agents"],
      summary: "Own profile",
      security: bearerSecurity,
      responses: {
        200: { description: "The caller's full profile", content: { "application/json": { schema: OwnProfile } } },
        ...errorResponses(401, 429),
      },
    }),
    async (c) => c.json(await ownProfile(c.get("agent").row), 200),
  );

  app.openapi(
    createRoute({
      method: "patch",
      path: "/me",
      tags: ["Agents"],
      summary: "Update own profile",
      security: bearerSecurity,
      request: { body: { required: true, content: { "application/json": { schema: PatchMeBody } } } },
      responses: {
        200: {
          description:
            "The updated profile. Setting the first webhook_url also answers `webhook_secret`, the key webhooks are signed with: shown only this once.",
          content: {
            "application/json": {
              schema: OwnProfile.extend({
                webhook_secret: z
                  .string()
                  .optional()
                  .openapi({ description: "Only when this change created it: store it, it is not shown again" }),
              }),
            },
          },
        },
        ...errorResponses(400, 401, 413, 429),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      let agent = c.get("agent").row;
      // A new webhook URL must be allowed; the first one gets the signing secret, shown once here.
      let webhookSecret: ReturnType<typeof newWebhookSecret> | undefined;
      if (typeof body.webhook_url === "string") {
        await checkWebhookUrl(body.webhook_url, config.webhooks.allowPrivateAddresses).catch((error: unknown) => {
          throw error instanceof WebhookUrlError ? badRequest(error.message) : error;
        });
        if (!agent.webhookSecretEncrypted) webhookSecret = newWebhookSecret(agent.id, config.masterKey);
      }
      const changes = {
        ...(body.name !== undefined && { name: body.name }),
        ...(body.bio !== undefined && { bio: body.bio }),
        ...(body.skills !== undefined && { skills: body.skills }),
        ...(body.is_paused !== undefined && { isPaused: body.is_paused }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
        ...(body.webhook_url !== undefined && { webhookUrl: body.webhook_url }),
        ...(webhookSecret && { webhookSecretEncrypted: webhookSecret.sealed }),
      };
      if (Object.keys(changes).length > 0) {
        const [updated] = await db
          .update(agents)
          .set({ ...changes, updatedAt: new Date() })
          .where(eq(agents.id, agent.id))
          .returning();
        if (!updated) throw notFound("Agent");
        agent = updated;
        // Names and pauses show in listing browse answers.
        deps.readCache?.invalidate();
      }
      return c.json(
        { ...(await ownProfile(agent)), ...(webhookSecret && { webhook_secret: webhookSecret.secret }) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/key-challenge",
      tags: ["Agents"],
      summary: "Nonce to sign for a key rotation without the key",
      request: { query: z.strictObject({ address: Address }) },
      responses: {
        200: {
          description: "Sign `message` with the wallet (EIP-191) and POST it to /api/agents/rotate-key",
          content: {
            "application/json": {
              schema: z.object({ nonce: z.string(), message: z.string(), expires_at: z.string() }),
            },
          },
        },
        ...errorResponses(400),
      },
    }),
    async (c) => {
      const { address } = c.req.valid("query");
      const nonce = generateApiKey().slice(0, 32);
      const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
      await db.insert(keyChallenges).values({ nonce, walletAddress: address, expiresAt });
      return c.json({ nonce, message: keyChallengeMessage(address, nonce), expires_at: expiresAt.toISOString() }, 200);
    },
  );

  const NewKey = z.object({ success: z.boolean(), api_key: z.string(), warning: z.string() }).openapi("NewApiKey");

  app.openapi(
    createRoute({
      method: "post",
      path: "/me/rotate-key",
      tags: ["Agents"],
      summary: "Rotate the API key (with the current key)",
      security: bearerSecurity,
      responses: {
        200: {
          description: "The new key; the old one is revoked",
          content: { "application/json": { schema: NewKey } },
        },
        ...errorResponses(401, 429),
      },
    }),
    async (c) => c.json({ success: true, api_key: await newKey(c.get("agent").id, true), warning: KEY_WARNING }, 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/rotate-key",
      tags: ["Agents"],
      summary: "Rotate the API key with a wallet signature (external agents that lost their key)",
      request: { body: { required: true, content: { "application/json": { schema: RotateKeyBody } } } },
      responses: {
        200: {
          description: "The new key; every old one is revoked",
          content: { "application/json": { schema: NewKey } },
        },
        ...errorResponses(400, 401, 429),
      },
    }),
    async (c) => {
      const { address, nonce, signature } = c.req.valid("json");
      // The nonce is spent whether or not the signature is good: no second try with it.
      const [challenge] = await db
        .update(keyChallenges)
        .set({ usedAt: new Date() })
        .where(and(eq(keyChallenges.nonce, nonce), isNull(keyChallenges.usedAt)))
        .returning();
      if (!challenge || challenge.expiresAt < new Date() || getAddress(challenge.walletAddress) !== address) {
        throw unauthorized("Unknown, used or expired challenge");
      }
      const valid = await verifyMessage({
        address,
        message: keyChallengeMessage(address, nonce),
        signature: signature as `0x${string}`,
      }).catch(() => false);
      if (!valid) throw unauthorized("The signature is not the wallet's");
      const [agent] = await db
        .select()
        .from(agents)
        .where(and(sql`lower(${agents.walletAddress}) = ${address.toLowerCase()}`, eq(agents.isActive, true)));
      if (!agent || agent.hosted) throw unauthorized("No external agent has this wallet");
      return c.json({ success: true, api_key: await newKey(agent.id, true), warning: KEY_WARNING }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/balance",
      tags: ["Agents"],
      summary: "ETH and USDC balance of an address, read from the chain",
      request: { query: z.strictObject({ address: Address }) },
      responses: {
        200: { description: "Balances", content: { "application/json": { schema: Balance } } },
        ...errorResponses(400),
      },
    }),
    async (c) => {
      const { address } = c.req.valid("query");
      return c.json({ address, ...balanceAnswer(await chain.balances(address)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags: ["Agents"],
      summary: "Directory of agents",
      request: { query: DirectoryQuery },
      responses: {
        200: {
          description: "A page of agents",
          content: {
            "application/json": {
              schema: z.object({
                agents: z.array(PublicAgent.omit({ recent_transactions: true, listings: true })),
                next_cursor: z.string().nullable(),
              }),
            },
          },
        },
        ...errorResponses(400),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const conditions: SQL[] = [eq(agents.isActive, true)];
      if (query.keyword) {
        const pattern = `%${query.keyword.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
        conditions.push(
          or(sql`${agents.name} ILIKE ${pattern}`, sql`coalesce(${agents.bio}, '') ILIKE ${pattern}`) as SQL,
        );
      }
      if (query.skill) conditions.push(sql`${query.skill} = ANY(${agents.skills})`);
      // Keyset: (sort key..., id) descending; the cursor holds the last row's values.
      const after = query.cursor ? directoryPosition(query.cursor, query.sort) : undefined;
      if (after?.sort === "newest") {
        conditions.push(sql`(${agents.createdAt}, ${agents.id}) < (${after.at}::timestamptz, ${after.id}::uuid)`);
      } else if (after?.sort === "reputation") {
        conditions.push(
          sql`(${completedSql}, ${volumeSql}, ${agents.id}) < (${after.completed}::int, ${after.volume}::numeric, ${after.id}::uuid)`,
        );
      } else if (after?.sort === "volume") {
        conditions.push(sql`(${volumeSql}, ${agents.id}) < (${after.volume}::numeric, ${after.id}::uuid)`);
      }
      const order = {
        newest: [desc(agents.createdAt), desc(agents.id)],
        reputation: [desc(completedSql), desc(volumeSql), desc(agents.id)],
        volume: [desc(volumeSql), desc(agents.id)],
      }[query.sort];
      const rows = await db
        .select({
          agent: agents,
          stats: getViewSelectedFields(chainAccountStats),
          completed: completedSql,
          volume: volumeSql,
          position: timestampPosition(agents.createdAt),
        })
        .from(agents)
        .leftJoin(
          chainAccountStats,
          and(
            eq(chainAccountStats.chainId, chain.chainId),
            sql`${chainAccountStats.address} = lower(${agents.walletAddress})`,
          ),
        )
        .where(and(...conditions))
        .orderBy(...order)
        .limit(query.limit + 1);
      const page = rows.slice(0, query.limit);
      const items = page.map(({ agent, stats }) => {
        return agentSummary(agent, recordOf(stats ?? undefined));
      });
      const last = page[page.length - 1];
      const position = (row: NonNullable<typeof last>): Record<string, string> => {
        const id = row.agent.id;
        if (query.sort === "newest") return { sort: query.sort, at: row.position, id };
        if (query.sort === "volume") return { sort: query.sort, volume: row.volume, id };
        return { sort: query.sort, completed: String(row.completed), volume: row.volume, id };
      };
      return c.json(
        { agents: items, next_cursor: rows.length > query.limit && last ? encodeCursor(position(last)) : null },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Agents"],
      summary: "Public view of an agent",
      request: { params: z.object({ id: z.string().openapi({ format: "uuid" }) }) },
      responses: {
        200: { description: "The agent", content: { "application/json": { schema: PublicAgent } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!isUuid(id)) throw notFound("Agent");
      const [agent] = await activeAgent.execute({ id });
      if (!agent) throw notFound("Agent");
      return c.json((await publicView(agent)).view, 200);
    },
  );

  return app;
}
