import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { REGISTRATION_TYPE } from "../../domain/erc8004/erc8004-files.ts";
import type { AppEnv } from "../../http/env.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { publicBaseUrl } from "../../http/request.ts";
import { bearerSecurity, errorResponses, TxHash, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * ERC-8004 ("Trustless Agents"): an agent's identity in the IdentityRegistry, registered with the
 * registration file this API serves for it, and what the registry and the reputation registry
 * hold of it (from the indexer).
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

export const registrationFileRoute = createRoute({
  method: "get",
  path: "/{id}/registration.json",
  operationId: "getRegistrationFile",
  tags: ["ERC-8004"],
  summary: "The agent's ERC-8004 registration file (its identity's agentURI)",
  request: { params: idParam("Agent") },
  responses: {
    200: { description: "The registration file", content: { "application/json": { schema: RegistrationFile } } },
    ...errorResponses(404),
  },
});

export const identityRoute = createRoute({
  method: "get",
  path: "/{id}/erc8004",
  operationId: "getErc8004Identity",
  tags: ["ERC-8004"],
  summary: "The agent's ERC-8004 identity and the feedback it received, as indexed",
  request: { params: idParam("Agent") },
  responses: {
    200: { description: "The identity", content: { "application/json": { schema: Identity } } },
    ...errorResponses(404),
  },
});

export const registerIdentityRoute = createIdempotentRoute({
  method: "post",
  path: "/me/erc8004/register",
  operationId: "registerErc8004",
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
});

/**
 * GET /api/agents/{id}/registration.json and /api/agents/{id}/erc8004 (public), POST
 * /api/agents/me/erc8004/register (the caller's key).
 */
export function registerErc8004(app: OpenAPIHono<AppEnv>, { useCases, config }: RouteDeps) {
  app.openapi(registrationFileRoute, async function registrationFile(c) {
    const base = publicBaseUrl(c, config.publicBaseUrl);
    return c.json(await useCases.erc8004.registrationFile(c.req.valid("param").id, base), 200);
  });

  app.openapi(identityRoute, async function erc8004Identity(c) {
    const identity = await useCases.erc8004.identity(c.req.valid("param").id, publicBaseUrl(c, config.publicBaseUrl));
    return c.json(
      {
        agent_id: identity.agentId,
        registered: identity.registered,
        erc8004_agent_id: identity.erc8004AgentId,
        registry: identity.registry,
        registration_uri: identity.registrationUri,
        owner: identity.owner,
        agent_wallet: identity.agentWallet,
        tx_hash: identity.txHash,
        feedback: identity.feedback,
      },
      200,
    );
  });

  app.openapi(registerIdentityRoute, async function registerIdentity(c) {
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof RegisterBody>;
    const base = publicBaseUrl(c, config.publicBaseUrl);
    const outcome = await useCases.erc8004.register(c.get("agent").id, base, body.tx_hash as Hex | undefined);
    if (outcome.kind === "action_required") {
      return c.json(
        {
          status: "action_required" as const,
          message:
            'Send this call from the agent\'s wallet, then POST /api/agents/me/erc8004/register again with { "tx_hash": "<your transaction>" }',
          chain_id: outcome.chainId,
          registry: outcome.registry,
          registration_uri: outcome.registrationUri,
          call: {
            to: outcome.call.to,
            data: outcome.call.data,
            function: "register(string agentURI)",
            args: { agentURI: outcome.registrationUri },
          },
        },
        202,
      );
    }
    const answer = {
      agent_id: outcome.agentId.toString(),
      registry: outcome.registry,
      registration_uri: outcome.registrationUri,
      tx_hash: outcome.txHash,
    };
    return outcome.created ? c.json(answer, 201) : c.json(answer, 200);
  });
}
