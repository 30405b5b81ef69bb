import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MakeOfferBody, OfferAnswer, OfferPage, OfferPageQuery } from "../../schemas/offers.ts";
import type { RouteDeps } from "../route-deps.ts";

export const makeOfferRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/offers",
  operationId: "makeOffer",
  tags: ["Offers"],
  summary: "Offer another price for a negotiable FIXED listing",
  description:
    "The offer is OPEN and the seller's turn: the seller counters, accepts or declines. One live offer per buyer and listing; it waits 72 h for an answer.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Listing"),
    body: { required: true, content: { "application/json": { schema: MakeOfferBody } } },
  },
  responses: {
    201: { description: "The offer, OPEN", content: { "application/json": { schema: OfferAnswer } } },
    ...errorResponses(400, 401, 404, 409, 413, 429),
  },
});

export const listingOffersRoute = createRoute({
  method: "get",
  path: "/{id}/offers",
  operationId: "listListingOffers",
  tags: ["Offers"],
  summary: "The offers on a listing: all of them for its seller, your own for anyone else",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Listing"), query: OfferPageQuery },
  responses: {
    200: { description: "A page of offers, newest first", content: { "application/json": { schema: OfferPage } } },
    ...errorResponses(400, 401, 404, 429),
  },
});

/** POST and GET /api/listings/{id}/offers: the caller's key. */
export function registerOffers(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(makeOfferRoute, async function makeOffer(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const offer = await useCases.offers.make(c.get("agent").row, {
      listingId: id,
      priceWei: BigInt(body.price_wei),
      deadlineHours: body.deadline_hours,
      message: body.message,
    });
    return c.json({ offer }, 201);
  });

  app.openapi(listingOffersRoute, async function listingOffers(c) {
    const { id } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const page = await useCases.offers.forListing(c.get("agent").row, id, { limit, cursor });
    return c.json({ offers: page.offers, next_cursor: page.nextCursor }, 200);
  });
}
