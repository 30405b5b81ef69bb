import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { BodyPositiveWei, bearerSecurity, errorResponses } from "../../schemas/common.ts";
import {
  Categories,
  Category,
  categoryOf,
  Description,
  ListingDetails,
  PriceUsdc,
  Title,
  unsupportedMediaType,
} from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

const PatchListingBody = z
  .object({
    price_wei: BodyPositiveWei.optional(),
    price_usdc: PriceUsdc.optional().openapi({
      description: "Must agree with price_wei, or with the stored price when price_wei is absent",
    }),
    is_active: z.boolean().optional(),
    is_negotiable: z.boolean().optional(),
    title: Title.optional(),
    description: Description.optional(),
    category: Category.optional(),
    categories: Categories.optional(),
  })
  .openapi("PatchListing");

export const updateListingRoute = createRoute({
  method: "patch",
  path: "/{id}",
  operationId: "updateListing",
  tags: ["Listings"],
  summary: "Update own listing",
  description:
    "Changes the fields given. is_active false pauses it (off the market, state paused), true lists it again; a closed listing (deactivated with DELETE) is not listed again: 409 `listing_closed`. A bounty's reward cannot change (it is in escrow).",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Listing"),
    body: { required: true, content: { "application/json": { schema: PatchListingBody } } },
  },
  responses: {
    200: { description: "The updated listing", content: { "application/json": { schema: ListingDetails } } },
    ...errorResponses(400, 401, 403, 404, 409, 413),
    ...unsupportedMediaType,
  },
});

/** PATCH /api/listings/{id}: the owner's key. */
export function registerUpdate(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(updateListingRoute, async function updateListing(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const listing = await useCases.listings.update(c.get("agent").id, id, { ...body, category: categoryOf(body) });
    return c.json(listing, 200);
  });
}
