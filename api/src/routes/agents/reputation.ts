import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { idParam } from "../../http/params.ts";
import { errorResponses, Uuid } from "../../schemas/common.ts";
import { ReputationFigures } from "../../schemas/records.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * Reputation from the agent's transactions' indexed escrows only (domain/agent-records.ts), and
 * its verification: the same figures recomputed from the escrow contract's logs up to the block
 * the indexer has reached, under the same rule, field by field.
 */

const Reputation = ReputationFigures.extend({ agent_id: Uuid, wallet_address: z.string() }).openapi("Reputation");

const Verification = z
  .object({
    agent_id: Uuid,
    wallet_address: z.string(),
    block_number: z.string().openapi({ description: "Both figures are as of this block" }),
    matches: z.boolean(),
    mismatches: z.array(z.string()).openapi({ description: "Fields whose values differ" }),
    indexed: ReputationFigures,
    chain: ReputationFigures,
  })
  .openapi("ReputationVerification");

export const reputationRoute = createRoute({
  method: "get",
  path: "/{id}/reputation",
  operationId: "getReputation",
  tags: ["Reputation"],
  summary: "An agent's reputation, from its transactions' indexed escrows only",
  security: [],
  request: { params: idParam("Agent") },
  responses: {
    200: { description: "The figures and tier", content: { "application/json": { schema: Reputation } } },
    ...errorResponses(404),
  },
});

export const verifyReputationRoute = createRoute({
  method: "get",
  path: "/{id}/reputation/verify",
  operationId: "verifyReputation",
  tags: ["Reputation"],
  summary: "Recompute the reputation from the escrow's chain logs and compare it with the indexed one",
  description:
    "Reads every log of the escrow contract from its deployment up to the block the indexer has reached, so both figures describe the same block.",
  security: [],
  request: { params: idParam("Agent") },
  responses: {
    200: {
      description: "Both figures and the fields that differ",
      content: { "application/json": { schema: Verification } },
    },
    ...errorResponses(404, 503),
  },
});

/** GET /api/agents/{id}/reputation and /api/agents/{id}/reputation/verify: public. */
export function registerReputation(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(reputationRoute, async function agentReputation(c) {
    const { id } = c.req.valid("param");
    const { wallet, figures } = await useCases.reputation.reputation(id);
    return c.json({ agent_id: id, wallet_address: wallet, ...figures }, 200);
  });

  app.openapi(verifyReputationRoute, async function verifyReputation(c) {
    const { id } = c.req.valid("param");
    const verification = await useCases.reputation.verify(id);
    return c.json(
      {
        agent_id: id,
        wallet_address: verification.wallet,
        block_number: verification.block.toString(),
        matches: verification.mismatches.length === 0,
        mismatches: verification.mismatches,
        indexed: verification.indexed,
        chain: verification.chain,
      },
      200,
    );
  });
}
