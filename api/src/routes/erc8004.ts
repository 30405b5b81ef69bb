import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import type { Hex } from "viem";
import { requireAgent } from "../auth/require-agent.ts";
import { agents, reviews } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { agentUrls, REGISTRATION_TYPE, registrationFile } from "../domain/erc8004-files.ts";
import { erc8004Identities } from "../domain/erc8004-identity.ts";
import { erc8004Registration } from "../domain/erc8004-registration.ts";
import { notFound } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { publicBaseUrl } from "../http/request.ts";
import { type SerializedJson, sendSerializedJson } from "../http/serialized-json.ts";
import { bearerSecurity, errorResponses, TxHash, Uuid } from "../schemas/common.ts";

/*
 * ERC-8004 ("Trustless Agents"): an agent's identity in the IdentityRegistry, registered with the
 * registration file this API serves for it; what the registry and the reputation registry hold of
 * it (from the indexer); and the feedback files of reviews given on chain.
 */

const RegistrationFile = z
  .object({
    type: z.literal(REGISTRATION_TYPE),
    name: z.string(),
    description: z.string().openapi({ description: "The agent's bio" }),
    image: z.string().optional().openapi({ description: "The agent's metadata.image, when it is a URL" }),
    services: z
      .array(z.object({ name: z.string(), endpoint: z.string(), version: z.string().optional() }))
      .openapi({ description: "The agent's public profile on this API, and the marketplace's MCP endpoint" }),
    x402Support: z.boolean(),
    active: z.boolean().openapi({ description: "False while the agent is paused" }),
    registrations: z
      .array(
        z.object({
          agentId: z.union([z.number().int(), z.string()]),
          agentRegistry: z.string().openapi({ example: "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432" }),
        }),
      )
      .openapi({ description: "Empty until the agent is registered" }),
    supportedTrust: z.array(z.string()),
  })
  .openapi("Erc8004RegistrationFile");

const FeedbackFile = z
  .object({
    agentRegistry: z.string(),
    agentId: z.union([z.number().int(), z.string()]),
    clientAddress: z.string().openapi({ description: "eip155:<chain id>:<reviewer's wallet>" }),
    createdAt: z.string(),
    value: z.number().int().openapi({ description: "The rating × 20: a 0-100 quality rating" }),
    valueDecimals: z.number().int(),
    tag1: z.string(),
    tag2: z.string(),
    endpoint: z.string().openapi({ description: "The reviewed agent's profile" }),
    proofOfPayment: z.object({
      fromAddress: z.string().openapi({ description: "The buyer" }),
      toAddress: z.string().openapi({ description: "The seller" }),
      chainId: z.string(),
      txHash: z.string().openapi({ description: "The escrow's release" }),
    }),
    agentMarketplace: z.object({
      reviewId: Uuid,
      transactionId: Uuid,
      rating: z.number().int(),
      comment: z.string().nullable(),
      escrowContract: z.string(),
      escrowId: z.string(),
    }),
  })
  .openapi("Erc8004FeedbackFile");

const Identity = z
  .object({
    agent_id: Uuid,
    registered: z.boolean(),
    erc8004_agent_id: z.string().nullable().openapi({ description: "The token id in the identity registry" }),
    registry: z.string().openapi({ description: "The identity registry" }),
    registration_uri: z.string(),
    owner: z.string().nullable().openapi({ description: "The token's owner, as indexed" }),
    agent_wallet: z.string().nullable().openapi({ description: "The registry's verified agentWallet, as indexed" }),
    tx_hash: z.string().nullable().openapi({ description: "The register transaction" }),
    feedback: z
      .object({ count: z.number().int(), average: z.string().nullable() })
      .openapi({ description: 'Indexed "starred" feedback (0-100) that is not revoked; average with two decimals' }),
  })
  .openapi("Erc8004Identity");

const RegisterBody = z
  .object({
    tx_hash: TxHash.optional().openapi({ description: "External agents' second call: the register they sent" }),
  })
  .openapi("Erc8004RegisterRequest");

const Registered = z
  .object({
    agent_id: z.string().openapi({ description: "The token id in the identity registry, decimal" }),
    registry: z.string(),
    registration_uri: z.string(),
    tx_hash: z.string().nullable().openapi({ description: "The register transaction" }),
  })
  .openapi("Erc8004Registered");

const ActionRequired = z
  .object({
    status: z.literal("action_required"),
    message: z.string(),
    chain_id: z.number().int(),
    registry: z.string(),
    registration_uri: z.string(),
    call: z.object({
      to: z.string(),
      data: z.string(),
      function: z.string(),
      args: z.object({ agentURI: z.string() }),
    }),
  })
  .openapi("Erc8004RegistrationCall");

const AgentParams = z.object({ id: z.string().openapi({ format: "uuid" }) });

export function erc8004Routes(deps: Deps) {
  const { db, config, chain, erc8004 } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const identities = erc8004Identities(db, chain.chainId);
  const registration = erc8004Registration(deps);
  app.use("/api/agents/me/erc8004/register", requireAgent(db));

  async function activeAgent(id: string) {
    if (!isUuid(id)) throw notFound("Agent");
    const [agent] = await db
      .select()
      .from(agents)
      .where(and(eq(agents.id, id), eq(agents.isActive, true)));
    if (!agent) throw notFound("Agent");
    return agent;
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{id}/registration.json",
      tags: ["ERC-8004"],
      summary: "The agent's ERC-8004 registration file (its identity's agentURI)",
      request: { params: AgentParams },
      responses: {
        200: { description: "The registration file", content: { "application/json": { schema: RegistrationFile } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const agent = await activeAgent(c.req.valid("param").id);
      const base = publicBaseUrl(c, config.publicBaseUrl);
      const identity = await identities.identityOf(agent, agentUrls(base, agent.id).registrationFile);
      const file = registrationFile({
        base,
        agent: { id: agent.id, name: agent.name, bio: agent.bio, metadata: agent.metadata, active: !agent.isPaused },
        identity: identity && { agentId: identity.agentId, agentRegistry: erc8004.agentRegistry },
      });
      return c.json(file, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/agents/{id}/erc8004",
      tags: ["ERC-8004"],
      summary: "The agent's ERC-8004 identity and the feedback it received, as indexed",
      request: { params: AgentParams },
      responses: {
        200: { description: "The identity", content: { "application/json": { schema: Identity } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const agent = await activeAgent(c.req.valid("param").id);
      const registrationUri = agentUrls(publicBaseUrl(c, config.publicBaseUrl), agent.id).registrationFile;
      const identity = await identities.identityOf(agent, registrationUri);
      const [indexed, feedback] = identity
        ? await Promise.all([
            identities.indexedIdentity(identity.agentId),
            identities.feedbackSummary(identity.agentId),
          ])
        : [undefined, { count: 0, average: null }];
      return c.json(
        {
          agent_id: agent.id,
          registered: identity !== undefined,
          erc8004_agent_id: identity?.agentId.toString() ?? null,
          registry: erc8004.identityRegistry,
          registration_uri: registrationUri,
          owner: indexed?.owner ?? null,
          agent_wallet: indexed?.agentWallet ?? null,
          tx_hash: identity?.txHash ?? null,
          feedback,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/agents/me/erc8004/register",
      tags: ["ERC-8004"],
      summary: "Register the caller in the ERC-8004 identity registry",
      description:
        "The identity belongs to the agent's wallet, with this API's registration file as its agentURI. A hosted agent's custodial wallet registers itself (the service pays its gas). An external agent gets the call to send (202), then calls again with `tx_hash`; a receipt that did not register this agent's file for its wallet is 400 (`tx_not_found`, `tx_reverted`, `not_a_registration`, `wrong_owner`, `wrong_agent_uri`). An agent that has an identity gets it back (200) and nothing is sent. 503 `indexer_behind`: registered and recorded, not indexed yet.",
      security: bearerSecurity,
      request: {
        body: { required: false, content: { "application/json": { schema: RegisterBody } } },
      },
      responses: {
        200: {
          description: "Already registered: nothing sent",
          content: { "application/json": { schema: Registered } },
        },
        201: { description: "Registered now", content: { "application/json": { schema: Registered } } },
        202: {
          description: "External agent: send this call from the agent's wallet, then call again with tx_hash",
          content: { "application/json": { schema: ActionRequired } },
        },
        ...errorResponses(400, 401, 409, 429, 502, 503),
      },
    }),
    async (c) => {
      const body = (c.req.valid("json") ?? {}) as z.infer<typeof RegisterBody>;
      const agent = c.get("agent").row;
      const registrationUri = agentUrls(publicBaseUrl(c, config.publicBaseUrl), agent.id).registrationFile;
      const outcome = await registration.register(agent.id, registrationUri, body.tx_hash as Hex | undefined);
      if (outcome.kind === "action_required") {
        return c.json(
          {
            status: "action_required" as const,
            message:
              'Send this call from the agent\'s wallet, then POST /api/agents/me/erc8004/register again with { "tx_hash": "<your transaction>" }',
            chain_id: chain.chainId,
            registry: erc8004.identityRegistry,
            registration_uri: registrationUri,
            call: {
              to: outcome.call.to,
              data: outcome.call.data,
              function: "register(string agentURI)",
              args: { agentURI: registrationUri },
            },
          },
          202,
        );
      }
      const answer = {
        agent_id: outcome.identity.agentId.toString(),
        registry: erc8004.identityRegistry,
        registration_uri: registrationUri,
        tx_hash: outcome.identity.txHash,
      };
      return outcome.created ? c.json(answer, 201) : c.json(answer, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/reviews/{id}/feedback.json",
      tags: ["ERC-8004"],
      summary: "The ERC-8004 feedback file of a review given on chain",
      description: "Served byte for byte as its keccak256 went on chain (the feedback's feedbackHash).",
      request: { params: z.object({ id: z.string().openapi({ format: "uuid" }) }) },
      responses: {
        200: { description: "The feedback file", content: { "application/json": { schema: FeedbackFile } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!isUuid(id)) throw notFound("Feedback file");
      const [review] = await db.select({ file: reviews.erc8004FeedbackFile }).from(reviews).where(eq(reviews.id, id));
      if (!review?.file) throw notFound("Feedback file");
      // The stored text, not a re-serialization: its bytes are what feedbackHash commits to.
      const bytes = Buffer.from(review.file) as SerializedJson<z.infer<typeof FeedbackFile>>;
      return sendSerializedJson(c, bytes, 200);
    },
  );

  return app;
}
