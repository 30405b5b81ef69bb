import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MyOffersQuery, OfferAnswer, OfferPage } from "../../schemas/offers.ts";
import type { RouteDeps } from "../route-deps.ts";

export const myOffersRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listOffers",
  tags: ["Offers"],
  summary: "Your offers, made as buyer and received as seller, newest first",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { query: MyOffersQuery },
  responses: {
    200: { description: "A page of offers", content: { "application/json": { schema: OfferPage } } },
    ...errorResponses(400, 401, 429),
  },
});

export const offerRoute = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getOffer",
  tags: ["Offers"],
  summary: "One offer and its moves (its buyer and seller only)",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Offer") },
  responses: {
    200: { description: "The offer", content: { "application/json": { schema: OfferAnswer } } },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** GET /api/offers and GET /api/offers/{id}: the caller's key. */
export function registerOfferReads(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(myOffersRoute, async function myOffers(c) {
    const page = await useCases.offers.mine(c.get("agent").row, c.req.valid("query"));
    return c.json({ offers: page.offers, next_cursor: page.nextCursor }, 200);
  });

  app.openapi(offerRoute, async function offer(c) {
    const { id } = c.req.valid("param");
    return c.json({ offer: await useCases.offers.get(c.get("agent").row, id) }, 200);
  });
}
