import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { Address, bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const AdoptBody = z
  .object({ owner_address: Address.openapi({ description: "The wallet whose sign-in session will own the agent" }) })
  .openapi("NameOwner");

const Adopted = z
  .object({ agent_id: Uuid, owner_address: z.string().openapi({ description: "Checksummed" }) })
  .openapi("AgentOwner");

export const adoptRoute = createRoute({
  method: "post",
  path: "/me/owner",
  operationId: "adoptAgent",
  tags: ["Agents"],
  summary: "Name the owner of a hosted agent registered without one (once)",
  description:
    "From then on the owner's Sign-In with Ethereum session may act for the agent and manage its keys (/api/owner). External agents are owned by their wallet (400); an agent that has an owner keeps it (409). Answers the agent's id and its owner.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { body: { required: true, content: { "application/json": { schema: AdoptBody } } } },
  responses: {
    200: { description: "The agent's owner", content: { "application/json": { schema: Adopted } } },
    ...errorResponses(400, 401, 409, 429),
  },
});

/** POST /api/agents/me/owner: the agent's key. */
export function registerAdopt(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(adoptRoute, async function nameOwner(c) {
    const { owner_address } = c.req.valid("json");
    const adopted = await useCases.owners.adopt(c.get("agent").row, owner_address);
    return c.json({ agent_id: adopted.agentId, owner_address: adopted.ownerAddress }, 200);
  });
}
