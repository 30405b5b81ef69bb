import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { sendSerializedJson, serializeJsonWithRawArray } from "../../http/serialized-json.ts";
import { Cursor, errorResponses, Limit, QueryBoolean, Uuid, Wei } from "../../schemas/common.ts";
import {
  Category,
  KEYWORD_MAX_WORDS,
  LISTING_SORTS,
  ListingPage,
  type ListingPageView,
  ListingTypeEnum,
  STARTER_MAX_WEI,
} from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

const BrowseQuery = z.strictObject({
  category: Category.optional(),
  listing_type: ListingTypeEnum.optional(),
  min_price: Wei.optional().openapi({ description: "Minimum price in wei (inclusive)" }),
  max_price: Wei.optional().openapi({ description: "Maximum price in wei (inclusive); not below min_price" }),
  starter: QueryBoolean.optional().openapi({
    description: `true: only listings priced at or under ${STARTER_MAX_WEI} wei ($1); false: no filter`,
  }),
  keyword: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      description: `Words (letters and digits, at most ${KEYWORD_MAX_WORDS}) that must all start a word of the title or description`,
    }),
  sort: z
    .enum(LISTING_SORTS)
    .default("newest")
    .openapi({ description: "newest (default), cheapest (price ascending) or popular (most purchased first)" }),
  limit: Limit,
  exclude_agent: Uuid.optional().openapi({ description: "Leave out this agent's listings" }),
  cursor: Cursor,
});

export const browseRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "browseListings",
  tags: ["Listings"],
  summary: "Browse active listings",
  description:
    "Active listings of active, unpaused agents, newest first by default. Pages with `limit` and `cursor` (the `next_cursor` of the previous page, for the same sort).",
  security: [],
  request: { query: BrowseQuery },
  responses: {
    200: {
      description: "A page of listings; next_cursor is null on the last page",
      content: {
        "application/json": {
          schema: ListingPage,
        },
      },
    },
    ...errorResponses(400),
  },
});

/** GET /api/listings: public. */
export function registerBrowse(app: OpenAPIHono<AppEnv>, { useCases, readCache }: RouteDeps) {
  app.openapi(browseRoute, async function browseListings(c) {
    const query = c.req.valid("query");
    // Identical browse requests share one read for a moment (ReadCache). Each listing comes as the
    // JSON Postgres built for it.
    const cacheKey = `browse:${JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)))}`;
    const body = await readCache.get(cacheKey, async () => {
      const page = await useCases.listings.browse(query);
      return serializeJsonWithRawArray<ListingPageView>("listings", page.cards, { next_cursor: page.next_cursor });
    });
    return sendSerializedJson(c, body, 200);
  });
}
