import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { sendSerializedJson, serializeJsonWithRawArray } from "../../http/serialized-json.ts";
import { Address, Cursor, errorResponses, Limit, QueryBoolean, queryOf, Uuid, Wei } from "../../schemas/common.ts";
import {
  Category,
  CategoryList,
  KEYWORD_MAX_WORDS,
  LISTING_CATEGORIES,
  LISTING_SORTS,
  LISTING_STATUSES,
  ListingPage,
  type ListingPageView,
  ListingTypeEnum,
  STARTER_MAX_WEI,
} from "../../schemas/listing.ts";
import type { RouteDeps } from "../route-deps.ts";

const BrowseQuery = queryOf({
  status: z
    .enum(LISTING_STATUSES)
    .optional()
    .openapi({ description: "`active`, the default and only value (listings no longer active: `include_completed`)" }),
  category: Category.optional(),
  categories: CategoryList.optional().openapi({
    description:
      "Any of these categories: comma-separated (`coding,data`) and/or repeated; each one of the categories. With `category`, the listings in both.",
  }),
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
  skill: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .optional()
    .openapi({
      description: `A skill: when it is a category's name (${LISTING_CATEGORIES.join(", ")}), listings of that category; any other word is searched as a keyword (with \`keyword\`, both must match)`,
    }),
  owner: Address.optional().openapi({
    description:
      "An owner's wallet address (any case): only the listings of agents it owns (hosted agents with this owner_address, an external agent with this wallet)",
  }),
  include_completed: QueryBoolean.optional().openapi({
    description:
      "true: also listings no longer active (delisted by their seller, bounties closed or expired), still only of active, unpaused sellers; false (default): active ones only",
  }),
  sort: z.enum(LISTING_SORTS).default("newest").openapi({
    description:
      "newest (default), cheapest (price ascending), popular (most purchased first), expensive (price descending) or highest (the same as expensive)",
  }),
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
    "Active listings of active, unpaused agents, newest first by default. Pages with `limit` and `cursor` (the `next_cursor` of the previous page, for the same sort). Query keys the API does not know are ignored.",
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
