import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { idParam } from "../../http/params.ts";
import { sendSerializedJson } from "../../http/serialized-json.ts";
import { errorResponses } from "../../schemas/common.ts";
import { ListingDetails, type ListingView } from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

export const detailsRoute = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getListing",
  tags: ["Listings"],
  summary: "Listing details",
  description: "Any listing, active or not, with its seller and the seller's track record.",
  security: [],
  request: { params: idParam("Listing") },
  responses: {
    200: { description: "The listing", content: { "application/json": { schema: ListingDetails } } },
    ...errorResponses(404),
  },
});

/** GET /api/listings/{id}: public. */
export function registerDetails(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(detailsRoute, async function listingDetails(c) {
    const { id } = c.req.valid("param");
    const json = await useCases.listings.detailsJson(id);
    return sendSerializedJson<ListingView, 200>(c, json, 200);
  });
}
