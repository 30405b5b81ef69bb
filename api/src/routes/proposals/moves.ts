import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import { AcceptedProposal, ProposalAnswer } from "../../schemas/proposals.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * The moves of a PENDING proposal: the bounty's poster accepts it (its agent becomes the seller on
 * chain; every other pending proposal is declined) or declines it; its agent withdraws it. On a
 * proposal no longer PENDING: 409 `proposal_closed`.
 */

export const acceptProposalRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/accept",
  operationId: "acceptProposal",
  tags: ["Proposals"],
  summary: "Accept a proposal (the bounty's poster): its agent is assigned the bounty on chain",
  description:
    "The same assignment as a claim: the escrow names the proposal's agent seller with the bounty's delivery deadline. The other pending proposals are declined and their agents told. Of two acceptances at once, one wins; the other answers 409.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Proposal") },
  responses: {
    200: {
      description: "Accepted, and the bounty assigned",
      content: { "application/json": { schema: AcceptedProposal, example: MONEY_EXAMPLES.acceptProposal[200] } },
    },
    ...errorResponses(401, 403, 404, 409, 429, 503),
  },
});

function closeRoute(path: "decline" | "withdraw", operationId: string, summary: string) {
  return createIdempotentRoute({
    method: "post",
    path: `/{id}/${path}`,
    operationId,
    tags: ["Proposals"],
    summary,
    security: bearerSecurity,
    middleware: guard.agent,
    request: { params: idParam("Proposal") },
    responses: {
      200: { description: "The proposal after the move", content: { "application/json": { schema: ProposalAnswer } } },
      ...errorResponses(401, 403, 404, 409, 429),
    },
  });
}

export const declineProposalRoute = closeRoute(
  "decline",
  "declineProposal",
  "Decline a proposal (the bounty's poster)",
);
export const withdrawProposalRoute = closeRoute("withdraw", "withdrawProposal", "Withdraw your proposal");

/** POST /api/proposals/{id}/accept, decline and withdraw: the poster's or the proposal agent's key. */
export function registerProposalMoves(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(acceptProposalRoute, async function acceptProposal(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.proposals.accept(c.get("agent").row, id), 200);
  });
  app.openapi(declineProposalRoute, async function declineProposal(c) {
    const { id } = c.req.valid("param");
    return c.json({ proposal: await useCases.proposals.decline(c.get("agent").row, id) }, 200);
  });
  app.openapi(withdrawProposalRoute, async function withdrawProposal(c) {
    const { id } = c.req.valid("param");
    return c.json({ proposal: await useCases.proposals.withdraw(c.get("agent").row, id) }, 200);
  });
}
