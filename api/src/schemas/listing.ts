import { z } from "@hono/zod-openapi";
import type { ListingView } from "../domain/listings/listings.ts";
import {
  DEFAULT_DELIVERY_HOURS,
  LISTING_CATEGORIES,
  LISTING_STATES,
  LISTING_TYPES,
  type ListingCategory,
} from "../domain/shared/listing-terms.ts";

import { SUCCESS_RATE_RULE } from "../domain/shared/reputation.ts";
import { ErrorBody, Uuid } from "./common.ts";
import { RatedDeals } from "./records.ts";

/** Shapes and limits of the /api/listings routes; the listing words are the domain's (shared/listing-terms.ts). */

export {
  KEYWORD_MAX_WORDS,
  LISTING_CATEGORIES,
  LISTING_SORTS,
  LISTING_STATES,
  LISTING_STATUSES,
  LISTING_TYPES,
  type ListingCategory,
  type ListingSort,
  type ListingType,
  STARTER_MAX_WEI,
} from "../domain/shared/listing-terms.ts";
export type { ListingView };

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 10_000;

export const Category = z.enum(LISTING_CATEGORIES).openapi({ description: "One of the listing categories" });

/**
 * `categories`, as clients of the live service send a listing's category: when `category` is
 * absent, the first entry that is one of ours becomes it (none: as if absent). Entries must be text.
 */
export const Categories = z
  .array(z.string().max(100))
  .max(50)
  .openapi({
    description: `The live service's categories: when category is absent, the first one of ${LISTING_CATEGORIES.join(", ")} in it becomes the category (none of them: as if absent)`,
    example: ["coding"],
  });

/** The category a body names: `category`, else the first known entry of `categories`, else undefined. */
export function categoryOf(body: { category?: ListingCategory; categories?: string[] }): ListingCategory | undefined {
  return (
    body.category ??
    body.categories
      ?.map((entry) => entry.trim().toLowerCase())
      .find((entry): entry is ListingCategory => (LISTING_CATEGORIES as readonly string[]).includes(entry))
  );
}
export const ListingTypeEnum = z.enum(LISTING_TYPES);

export const ListingStateEnum = z.enum(LISTING_STATES).openapi("ListingState", {
  description:
    "Where the listing stands for its seller: active (on the market), paused (taken off it by its seller, who may list it again with PATCH is_active true), awaiting_funding (a bounty hidden until its reward is in escrow), closed (for good: deactivated with DELETE, or a bounty refunded at its expiry; never listed again)",
});

/**
 * Categories in a query string: comma-separated, repeated, or both (`categories=coding,data`,
 * `categories=coding&categories=data`); each must be a category.
 */
export const CategoryList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(",")))
  .pipe(z.array(Category).min(1))
  .openapi({ type: "array", items: { type: "string", enum: [...LISTING_CATEGORIES] }, param: { explode: true } });

export const Title = z
  .string()
  .trim()
  .min(1)
  .max(TITLE_MAX)
  .openapi({ description: `1 to ${TITLE_MAX} characters (trimmed)` });

export const Description = z
  .string()
  .trim()
  .min(1)
  .max(DESCRIPTION_MAX)
  .openapi({ description: `1 to ${DESCRIPTION_MAX.toLocaleString("en")} characters (trimmed)` });

export const PriceUsdc = z
  .string()
  .regex(/^\d{1,78}\.\d{2}$/, "must be a decimal with two places, e.g. 1.50")
  .openapi({
    description: "Optional cross-check: must equal price_wei in USDC with two decimals, rounded down",
    example: "1.50",
  });

const RatingCount = z.number().int().openapi({ description: "How many ratings avg_rating averages (0: none yet)" });

const DeliveryHours = z
  .number()
  .int()
  .openapi({
    description: `Hours the seller has to deliver once the escrow is funded: a bounty's own; for a service, a purchase's default (${DEFAULT_DELIVERY_HOURS}; the buyer may choose another with deadline_hours). Missed, the buyer can take the money back`,
  });

const AcceptsProposals = z.boolean().openapi({
  description: "BOUNTY only: agents send proposals and the poster picks one (no first-come claim)",
});

export const ListingDetails = z
  .object({
    id: Uuid,
    title: z.string(),
    description: z.string(),
    category: Category,
    listing_type: ListingTypeEnum,
    price_wei: z.string(),
    price_usdc: z.string(),
    currency: z.literal("USDC"),
    is_active: z.boolean(),
    state: ListingStateEnum,
    is_negotiable: z.boolean(),
    accepts_proposals: AcceptsProposals,
    times_purchased: z.number().int(),
    avg_rating: z.string().openapi({ description: 'Average rating, two decimals; "0.00" without ratings' }),
    created_at: z.string(),
    rating_count: RatingCount,
    delivery_hours: DeliveryHours,
    agents: z.object({
      id: Uuid,
      name: z.string(),
      wallet_address: z.string(),
      transaction_count: z.number().int().openapi({
        description: "The seller's transactions with an escrow, as buyer or as seller, in any state",
      }),
    }),
    seller_reputation: z.object({
      completed: z.number().int().openapi({ description: "Escrows released or ruled, as buyer or seller" }),
      refunded: z.number().int(),
      disputed: z.number().int().openapi({ description: "Escrows disputed at some point, whatever came of it" }),
      success_rate: z
        .number()
        .int()
        .openapi({
          description: `Integer percentage, rounded down. ${SUCCESS_RATE_RULE}`,
        }),
      rated_deals: RatedDeals,
    }),
    x402: z
      .object({
        endpoint: z.string().openapi({ example: "/api/listings/0b7e3c52-8d6f-4a4e-9f3e-2f6b1c9d8a70/x402" }),
        methods: z.array(z.string()).openapi({ example: ["GET", "POST"] }),
        x402_version: z.number().int().openapi({ example: 2 }),
        scheme: z.string().openapi({ example: "exact" }),
        network: z.string().openapi({ description: "CAIP-2: `eip155:<chain id>`", example: "eip155:8453" }),
        asset: z.string().openapi({ description: "USDC" }),
        pay_to: z.string().openapi({ description: "The escrow contract" }),
      })
      .nullable()
      .openapi({
        description:
          "A FIXED listing is also bought over x402 by any stock x402 client (`@x402/fetch`...): GET or POST the endpoint (with the API's origin) for a 402 with the payment requirements, then pay; the payment funds this listing's escrow. Null for a BOUNTY.",
      }),
  })
  .openapi("Listing");

export const BrowseListing = z
  .object({
    id: Uuid,
    title: z.string(),
    description: z.string(),
    category: Category,
    listing_type: ListingTypeEnum,
    price_wei: z.string(),
    price_usdc: z.string(),
    currency: z.literal("USDC"),
    is_negotiable: z.boolean(),
    accepts_proposals: AcceptsProposals,
    times_purchased: z.number().int(),
    avg_rating: z.string().openapi({ description: 'Average rating, two decimals; "0.00" without ratings' }),
    created_at: z.string(),
    rating_count: RatingCount,
    delivery_hours: DeliveryHours,
    is_active: z.boolean().openapi({
      description:
        "false only with include_completed=true: a listing its seller delisted, or a bounty that closed or expired",
    }),
    agent: z.object({
      id: Uuid,
      name: z.string(),
      reputation_tier: z.string(),
      success_rate: z.number().int().openapi({
        description:
          "The seller's success rate as the listing's seller_reputation gives it: integer percent, rounded down",
      }),
      rated_deals: RatedDeals,
    }),
  })
  .openapi("BrowseListing");

export const ListingPage = z
  .object({ listings: z.array(BrowseListing), next_cursor: z.string().nullable() })
  .openapi("ListingPage");
export type ListingPageView = z.infer<typeof ListingPage>;

/** A bounty taken: its seller named on chain with a delivery deadline (a claim, or an accepted proposal). */
export const Claimed = z
  .object({
    success: z.literal(true),
    transaction_id: Uuid,
    message: z.string(),
    deadline: z.string(),
    tx_hash: z.string(),
    state: z.literal("FUNDED"),
  })
  .openapi("Claimed");

/** Answered by the framework for a body that is not application/json. */
export const unsupportedMediaType = {
  415: { description: "Body not sent as application/json", content: { "application/json": { schema: ErrorBody } } },
};

/** One of the caller's own listings, in any state (GET /api/agents/me/listings). */
export const OwnListing = ListingDetails.pick({
  id: true,
  title: true,
  description: true,
  category: true,
  listing_type: true,
  price_wei: true,
  price_usdc: true,
  currency: true,
  is_active: true,
  state: true,
  is_negotiable: true,
  accepts_proposals: true,
  times_purchased: true,
  created_at: true,
})
  .extend({ updated_at: z.string() })
  .openapi("OwnListing");

export const OwnListingPage = z
  .object({ listings: z.array(OwnListing), next_cursor: z.string().nullable() })
  .openapi("OwnListingPage");
