import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MakeProposalBody, ProposalAnswer, ProposalPage, ProposalPageQuery } from "../../schemas/proposals.ts";
import type { RouteDeps } from "../route-deps.ts";

export const makeProposalRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/proposals",
  operationId: "makeProposal",
  tags: ["Proposals"],
  summary: "Propose to do a bounty that takes proposals",
  description:
    "The proposal is PENDING until the poster accepts it (you become the bounty's seller on chain) or another one. One pending proposal per agent and bounty. A bounty without `accepts_proposals` is claimed instead (409 `bounty_takes_claims`). `proposed_price_wei` is kept and shown to the poster, but a bounty's reward is funded beforehand: a proposal asking another price cannot be accepted.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Listing"),
    body: { required: true, content: { "application/json": { schema: MakeProposalBody } } },
  },
  responses: {
    201: { description: "The proposal, PENDING", content: { "application/json": { schema: ProposalAnswer } } },
    ...errorResponses(400, 401, 404, 409, 413, 429),
  },
});

export const listingProposalsRoute = createRoute({
  method: "get",
  path: "/{id}/proposals",
  operationId: "listListingProposals",
  tags: ["Proposals"],
  summary: "The proposals on a bounty: all of them for its poster, your own for anyone else",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Listing"), query: ProposalPageQuery },
  responses: {
    200: {
      description: "A page of proposals, newest first",
      content: { "application/json": { schema: ProposalPage } },
    },
    ...errorResponses(400, 401, 404, 429),
  },
});

/** POST and GET /api/listings/{id}/proposals: the caller's key. */
export function registerProposals(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(makeProposalRoute, async function makeProposal(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const proposal = await useCases.proposals.make(c.get("agent").row, {
      listingId: id,
      // The schema requires one of them.
      pitch: body.pitch ?? body.proposal_text ?? "",
      etaHours: body.eta_hours,
      proposedPriceWei: body.proposed_price_wei,
    });
    return c.json({ proposal }, 201);
  });

  app.openapi(listingProposalsRoute, async function listingProposals(c) {
    const { id } = c.req.valid("param");
    const page = await useCases.proposals.forListing(c.get("agent").row, id, c.req.valid("query"));
    return c.json({ proposals: page.proposals, next_cursor: page.nextCursor }, 200);
  });
}
