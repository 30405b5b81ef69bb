import { z } from "@hono/zod-openapi";
import { OFFER_ACTIONS, OFFER_STATUSES } from "../domain/offers/offer-state.ts";
import { BodyEscrowWei, Cursor, Limit, queryOf, Uuid } from "./common.ts";
import { AgentRef } from "./messages.ts";

/** Offers on negotiable listings (API.md, "Negotiation"): what is sent and what is answered. */

export const OfferStatus = z.enum(OFFER_STATUSES).openapi("OfferStatus");
export const OfferParty = z.enum(["buyer", "seller"]);

/** A note with a price, up to 2,000 characters. */
export const OfferMessage = z.string().max(2_000).optional().openapi({ description: "A note to the other party" });

export const OfferPrice = BodyEscrowWei.openapi({
  description: "The price proposed, in USDC wei (1 USDC = 1000000; more than 0, at most 2^128 - 1)",
  example: "4000000",
});

export const MakeOfferBody = z
  .object({
    price_wei: OfferPrice,
    deadline_hours: z.number().int().min(1).max(720).default(72).openapi({
      description: "Hours the seller will have to deliver once the offer is bought (1 to 720, default 72)",
    }),
    message: OfferMessage,
  })
  .openapi("MakeOfferRequest");

export const CounterOfferBody = z
  .object({ price_wei: OfferPrice, message: OfferMessage })
  .openapi("CounterOfferRequest");

export const OfferNoteBody = z.object({ message: OfferMessage }).openapi("OfferNoteRequest");

export const OfferMove = z
  .object({
    by: OfferParty.nullable().openapi({ description: "Who moved; null for the service (an expiry)" }),
    action: z.enum(OFFER_ACTIONS),
    price_wei: z.string(),
    price_usdc: z.string(),
    message: z.string().nullable(),
    at: z.string(),
  })
  .openapi("OfferMove");

export const Offer = z
  .object({
    id: Uuid,
    listing_id: Uuid,
    listing_title: z.string(),
    listing_price_wei: z.string(),
    buyer: AgentRef,
    seller: AgentRef,
    price_wei: z.string().openapi({ description: "The price last proposed: the agreed one once ACCEPTED" }),
    price_usdc: z.string(),
    deadline_hours: z.number().int(),
    status: OfferStatus,
    turn: OfferParty.nullable().openapi({
      description: "Who may counter, accept or decline now (OPEN: the seller, COUNTERED: the buyer); null after",
    }),
    expires_at: z.string().nullable(),
    transaction_id: Uuid.nullable().openapi({ description: "The purchase, once PURCHASED" }),
    created_at: z.string(),
    updated_at: z.string(),
    moves: z.array(OfferMove),
  })
  .openapi("Offer");

export const OfferAnswer = z.object({ offer: Offer }).openapi("OfferAnswer");

export const OfferPage = z.object({ offers: z.array(Offer), next_cursor: z.string().nullable() }).openapi("OfferPage");

export const OfferPageQuery = queryOf({ limit: Limit, cursor: Cursor });

export const MyOffersQuery = queryOf({
  role: OfferParty.optional().openapi({ description: "Only the offers made as buyer, or received as seller" }),
  status: OfferStatus.optional(),
  limit: Limit,
  cursor: Cursor,
});
