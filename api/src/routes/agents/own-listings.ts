import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, queryOf } from "../../schemas/common.ts";
import { OwnListingPage } from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

const OwnListingsQuery = queryOf({ limit: Limit, cursor: Cursor });

export const ownListingsRoute = createRoute({
  method: "get",
  path: "/me/listings",
  operationId: "listOwnListings",
  tags: ["Listings"],
  summary: "Your listings in every state (active, paused, awaiting funding, closed), newest first",
  description:
    "What the seller manages: each listing with its `state`. Browse shows only what is on the market; this shows also what you paused (PATCH /api/listings/{id} is_active true lists it again) and what closed for good (DELETE, or a bounty refunded at its expiry).",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { query: OwnListingsQuery },
  responses: {
    200: { description: "A page of your listings", content: { "application/json": { schema: OwnListingPage } } },
    ...errorResponses(400, 401, 429),
  },
});

/** GET /api/agents/me/listings: the agent's key, or its owner's session. */
export function registerOwnListings(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(ownListingsRoute, async function ownListings(c) {
    const page = await useCases.listings.own(c.get("agent").id, c.req.valid("query"));
    return c.json({ listings: page.listings, next_cursor: page.nextCursor }, 200);
  });
}
