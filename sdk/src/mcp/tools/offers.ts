import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { OFFER_STATUSES, TRANSACTION_ROLES } from "../../enums.ts";
import { amountFromInput } from "../amounts.ts";
import type { Session } from "../session.ts";
import { toolResult } from "../tool-result.ts";
import { cursor, deliveryHours, id, limit, readOnly, usdcAmount, weiAmount, writes } from "./fields.ts";

/*
 * Tools of negotiation: offer another price on a negotiable FIXED listing, answer an offer in turn
 * (counter, accept, decline), withdraw one, and list them. An ACCEPTED offer is bought with
 * buy_listing and its offer_id.
 */

const message = z.string().max(2_000).optional().describe("A note to the other party");

/** A price proposed, in USDC or in wei, with a note: what an offer and a counter send. */
const priceAndNote = (what: string) => ({
  price_usdc: usdcAmount(what).optional(),
  price_wei: weiAmount(what).optional(),
  message,
});

/** The body of a price and its note, from a tool's input. */
const priceBody = (input: Record<string, unknown> & { message?: string }) => ({
  price_wei: amountFromInput(input, "price", true).toString(),
  ...(input.message !== undefined && { message: input.message }),
});
const offerAnswer =
  "Answers the offer: status (OPEN: the seller's turn, COUNTERED: the buyer's, ACCEPTED, PURCHASED, DECLINED, WITHDRAWN, EXPIRED), turn, price_wei, expires_at and every move.";

export function registerOfferTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "make_offer",
    {
      title: "Offer another price",
      description: [
        "Offer another price for a FIXED listing that is_negotiable (one live offer per listing). The seller then counters, accepts or declines; you are told (notifications offer.*). An unanswered offer expires after 72 h; once ACCEPTED, buy it within 24 h with buy_listing and offer_id.",
        offerAnswer,
        "Refusals: 400 (a price of 0 or above 2^128 - 1, your own listing), 409 (not negotiable, a BOUNTY, inactive, seller paused, or you already have a live offer on it), 404.",
      ].join("\n"),
      inputSchema: {
        listing_id: id("listing"),
        ...priceAndNote("The price you offer"),
        deadline_hours: deliveryHours("Hours the seller will have to deliver once bought (default 72)"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() =>
        client.makeOffer({
          id: input.listing_id,
          ...priceBody(input),
          ...(input.deadline_hours !== undefined && { deadline_hours: input.deadline_hours }),
        }),
      ),
  );

  server.registerTool(
    "counter_offer",
    {
      title: "Counter an offer",
      description: [
        "Propose another price on an offer when it is your turn (the seller on an OPEN offer, the buyer on a COUNTERED one): the turn passes to the other party.",
        offerAnswer,
        "Refusals: 409 offer_not_your_turn or offer_closed, 403 (not your offer), 404.",
      ].join("\n"),
      inputSchema: {
        offer_id: id("offer"),
        ...priceAndNote("The price you propose"),
      },
      annotations: writes,
    },
    (input) => toolResult(() => client.counterOffer({ id: input.offer_id, ...priceBody(input) })),
  );

  const answerTool = (name: "accept_offer" | "decline_offer" | "withdraw_offer", title: string, what: string) =>
    server.registerTool(
      name,
      {
        title,
        description: [
          what,
          offerAnswer,
          "Refusals: 409 (out of turn, or the offer is closed or expired), 403, 404.",
        ].join("\n"),
        inputSchema: { offer_id: id("offer"), message },
        annotations: writes,
      },
      (input) =>
        toolResult(() => {
          const body = input.message !== undefined ? { message: input.message } : {};
          if (name === "accept_offer") return client.acceptOffer({ id: input.offer_id, ...body });
          if (name === "decline_offer") return client.declineOffer({ id: input.offer_id, ...body });
          return client.withdrawOffer({ id: input.offer_id, ...body });
        }),
    );
  answerTool(
    "accept_offer",
    "Accept an offer",
    "Accept the price proposed when it is your turn. Accepted, the buyer buys it with buy_listing and offer_id within 24 h.",
  );
  answerTool("decline_offer", "Decline an offer", "Decline an offer when it is your turn: it is closed.");
  answerTool(
    "withdraw_offer",
    "Withdraw your offer",
    "As its buyer, withdraw your offer (open, countered or accepted) before it is bought.",
  );

  server.registerTool(
    "list_offers",
    {
      title: "Your offers",
      description:
        "Your offers, newest first: made as buyer and received as seller (role narrows to one), optionally of one status. With listing_id: that listing's offers (all of them if it is yours, else your own). Answers offers (each with its turn and moves) and next_cursor.",
      inputSchema: {
        listing_id: id("listing").optional(),
        role: z.enum(TRANSACTION_ROLES).optional().describe("Only offers you made (buyer) or received (seller)"),
        status: z.enum(OFFER_STATUSES).optional().describe("Only offers in this state"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) =>
      toolResult(() => {
        const { listing_id, role, status, ...page } = input;
        if (listing_id) return client.listListingOffers({ id: listing_id, ...page });
        return client.listOffers({ ...page, ...(role && { role }), ...(status && { status }) });
      }),
  );

  server.registerTool(
    "get_offer",
    {
      title: "An offer",
      description: `One of your offers, as buyer or seller. ${offerAnswer} 403: not your offer; 404: none.`,
      inputSchema: { offer_id: id("offer") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getOffer({ id: input.offer_id })),
  );
}
