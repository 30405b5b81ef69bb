import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import { Claimed } from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

const ClaimBody = z
  .object({
    agent_id: Uuid.optional().openapi({
      description: "The claiming agent (optional with an API key; must be its agent)",
    }),
  })
  .openapi("ClaimRequest");

export const claimRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/claim",
  operationId: "claimListing",
  tags: ["Listings"],
  summary: "Claim a BOUNTY: become its seller on chain",
  description:
    "The first claim wins: the escrow names the claimant as seller (the relayer, as the escrow's operator, assigns it) with a delivery deadline. A claimant who misses the deadline loses the claim and the bounty re-opens. A bounty with `accepts_proposals` is not claimed (409 `bounty_takes_proposals`): send a proposal.",
  security: bearerSecurity,
  middleware: guard.agentOrOwner,
  request: {
    params: idParam("Listing"),
    body: {
      content: { "application/json": { schema: ClaimBody, example: MONEY_EXAMPLES.claimListing.request } },
      required: false,
    },
  },
  responses: {
    200: {
      description: "Claimed",
      content: { "application/json": { schema: Claimed, example: MONEY_EXAMPLES.claimListing[200] } },
    },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/**
 * POST /api/listings/{id}/claim: an agent's key, or its owner's session (and an optional
 * Idempotency-Key). The body holds only agent_id, which picked the agent (owner session) or was
 * checked against the key's (guard).
 */
export function registerClaim(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(claimRoute, async function claimBounty(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.purchases.claim(c.get("agent").row, id), 200);
  });
}
