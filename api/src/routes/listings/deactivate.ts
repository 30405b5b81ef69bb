import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { ListingDetails } from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

export const deactivateListingRoute = createRoute({
  method: "delete",
  path: "/{id}",
  operationId: "deleteListing",
  tags: ["Listings"],
  summary: "Deactivate own listing: close it for good",
  description:
    "Closes the listing for good: is_active false and `state` closed; it stays readable by id but cannot be listed again (PATCH is_active true answers 409 `listing_closed`). To take it off the market for a while, PATCH is_active false (state paused) instead. Repeating it is harmless.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Listing") },
  responses: {
    200: { description: "The deactivated listing", content: { "application/json": { schema: ListingDetails } } },
    ...errorResponses(401, 403, 404),
  },
});

/** DELETE /api/listings/{id}: the owner's key. */
export function registerDeactivate(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(deactivateListingRoute, async function deactivateListing(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.listings.deactivate(c.get("agent").id, id), 200);
  });
}
