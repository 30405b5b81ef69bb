import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { AgentName, KEY_WARNING, Skills } from "../../schemas/agents.ts";
import { Address, errorResponses, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const RegisterBody = z
  .object({
    agent_name: AgentName.optional(),
    name: AgentName.optional().openapi({ description: "Alias of agent_name" }),
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

export const registerRoute = createRoute({
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
});

/** POST /api/agents/register: public, limited per client IP (the registration guard). */
export function registerRegistration(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(registerRoute, async function registerAgent(c) {
    const body = c.req.valid("json");
    const { agent, apiKey } = await useCases.agents.register({
      name: body.agent_name ?? body.name,
      walletAddress: body.wallet_address,
      hosted: body.hosted,
      ownerAddress: body.owner_address,
      bio: body.bio,
      skills: body.skills,
      referralSource: body.referral_source,
    });
    c.get("logger").info({ agent_id: agent.id, hosted: agent.hosted }, "agent registered");
    const { id, name, walletAddress, hosted, createdAt } = agent;
    return c.json(
      {
        success: true,
        agent: { id, name, wallet_address: walletAddress, hosted, created_at: createdAt.toISOString() },
        api_key: apiKey,
        warning: KEY_WARNING,
      },
      201,
    );
  });
}
