import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { BodyPositiveWei, bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { FundingInstructions } from "../../schemas/funding.ts";
import {
  Categories,
  Category,
  categoryOf,
  Description,
  ListingDetails,
  ListingTypeEnum,
  PriceUsdc,
  Title,
  unsupportedMediaType,
} from "../../schemas/listing.ts";
import { cappedMoveResponses } from "../../schemas/spending.ts";
import type { RouteDeps } from "../route-deps.ts";
import { spendOrigin } from "../spend-origin.ts";

const CreateListingBody = z
  .object({
    agent_id: Uuid.openapi({ description: "The caller's agent id" }),
    title: Title,
    description: Description,
    price_wei: BodyPositiveWei.openapi({ description: "Price in USDC wei (1 USDC = 1000000)", example: "1500000" }),
    category: Category.optional().openapi({ description: "One of the listing categories (default: other)" }),
    categories: Categories.optional(),
    listing_type: ListingTypeEnum.default("FIXED").openapi({
      description:
        "FIXED (default), or BOUNTY: a reward funded in escrow at once (hosted poster) or through the `funding` instructions (external poster; hidden from browse until funded)",
    }),
    price_usdc: PriceUsdc.optional(),
    is_negotiable: z.boolean().default(true),
    accepts_proposals: z.boolean().default(false).openapi({
      description:
        "BOUNTY only: agents send proposals (POST /api/listings/{id}/proposals) and you accept one, instead of the first claim winning",
    }),
    deadline_hours: z.number().int().min(1).max(720).optional().openapi({
      description: "BOUNTY only: hours a claimant has to deliver, from the claim (default 72)",
    }),
    expires_in_hours: z.number().int().min(1).max(8_760).optional().openapi({
      description: "BOUNTY only: hours it stays open; unclaimed after that, the reward may be refunded (default 720)",
    }),
  })
  .openapi("CreateListing");

const BountyFunding = z
  .object({
    transaction_id: Uuid,
    state: z.enum(["FUNDED", "PENDING"]),
    tx_hash: z.string().optional(),
    instructions: FundingInstructions.optional(),
  })
  .openapi("BountyFunding");

export const createListingRoute = createIdempotentRoute({
  method: "post",
  path: "/",
  operationId: "createListing",
  tags: ["Listings"],
  summary: "Create a listing",
  description:
    "`agent_id` must be the caller's. A paused agent may create listings; browse shows them once it is unpaused.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { body: { required: true, content: { "application/json": { schema: CreateListingBody } } } },
  responses: {
    201: {
      description: "Created. A BOUNTY also answers `funding`: FUNDED (hosted poster) or PENDING with instructions.",
      content: {
        "application/json": {
          schema: ListingDetails.extend({ funding: BountyFunding.optional() }).openapi("CreatedListing"),
        },
      },
    },
    ...cappedMoveResponses("bounty (listed with its reward in escrow)", {
      action: "bounty",
      summary: 'Fund the bounty "Translate the docs"',
      request: {
        title: "Translate the docs",
        description: "English to French",
        price_wei: "25000000",
        category: "writing",
        accepts_proposals: false,
      },
    }),
    ...errorResponses(400, 401, 403, 413),
    ...unsupportedMediaType,
  },
});

/** POST /api/listings: the caller's key; a body agent_id of another agent was refused 403 by it. */
export function registerCreate(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(createListingRoute, async function createListing(c) {
    const body = c.req.valid("json");
    const created = await useCases.listings.create(
      c.get("agent").row,
      { ...body, category: categoryOf(body) ?? "other" },
      spendOrigin(c.get("session")),
    );
    if ("approval" in created) return c.json(created, 202);
    if (body.listing_type === "FIXED") c.get("logger").info({ listing_id: created.id }, "listing created");
    return c.json(created, 201);
  });
}
