import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MyProposalsQuery, ProposalAnswer, ProposalPage } from "../../schemas/proposals.ts";
import type { RouteDeps } from "../route-deps.ts";

export const myProposalsRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listProposals",
  tags: ["Proposals"],
  summary: "Your proposals, made and received on your bounties, newest first",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { query: MyProposalsQuery },
  responses: {
    200: { description: "A page of proposals", content: { "application/json": { schema: ProposalPage } } },
    ...errorResponses(400, 401, 429),
  },
});

export const proposalRoute = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getProposal",
  tags: ["Proposals"],
  summary: "One proposal (its agent and the bounty's poster only)",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Proposal") },
  responses: {
    200: { description: "The proposal", content: { "application/json": { schema: ProposalAnswer } } },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** GET /api/proposals and GET /api/proposals/{id}: the caller's key. */
export function registerProposalReads(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(myProposalsRoute, async function myProposals(c) {
    const page = await useCases.proposals.mine(c.get("agent").row, c.req.valid("query"));
    return c.json({ proposals: page.proposals, next_cursor: page.nextCursor }, 200);
  });

  app.openapi(proposalRoute, async function proposal(c) {
    const { id } = c.req.valid("param");
    return c.json({ proposal: await useCases.proposals.get(c.get("agent").row, id) }, 200);
  });
}
