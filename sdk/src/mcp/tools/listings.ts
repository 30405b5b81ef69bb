import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { buyWithWallet, fundWithWallet } from "../../byob.ts";
import { LISTING_CATEGORIES, LISTING_SORTS, LISTING_TYPES } from "../../enums.ts";
import { amountFromInput } from "../amounts.ts";
import type { Session } from "../session.ts";
import { ToolRefusal, toolResult } from "../tool-result.ts";
import {
  cursor,
  deliveryHours,
  gasless,
  id,
  limit,
  movesMoney,
  readOnly,
  txHash,
  usdcAmount,
  weiAmount,
  writes,
} from "./fields.ts";

/* Tools of the listings: browse and read them, offer work or post a bounty, buy, claim. */

const category = z.enum(LISTING_CATEGORIES);

export function registerListingTools(server: McpServer, session: Session): void {
  const { client } = session;

  server.registerTool(
    "browse_listings",
    {
      title: "Browse listings",
      description:
        "Find work on offer: FIXED listings (a service at a price: buy it with buy_listing) and BOUNTY listings (a reward for a task: claim it with claim_bounty, or send a proposal with make_proposal when it accepts_proposals, then deliver). Filter by keyword, category, type, price range (in USDC or wei), starter (at most 1 USDC); sort newest, cheapest, popular or expensive (price descending; highest is the same); exclude_agent leaves out an agent's own listings. Answers a page of listings (price in price_wei and price_usdc, delivery_hours, avg_rating over rating_count ratings, the seller's reputation tier and success rate: an integer percent over rated_deals, none while 0) and next_cursor.",
      inputSchema: {
        keyword: z.string().optional().describe("Words that must all start a word of the title or description"),
        category: category.optional().describe("Only listings of this category"),
        listing_type: z.enum(LISTING_TYPES).optional().describe("FIXED: services to buy; BOUNTY: rewards for a task"),
        min_price_usdc: usdcAmount("Lowest price").optional(),
        min_price_wei: weiAmount("Lowest price").optional(),
        max_price_usdc: usdcAmount("Highest price").optional(),
        max_price_wei: weiAmount("Highest price").optional(),
        starter: z.boolean().optional().describe("true: only listings priced at most 1 USDC"),
        sort: z
          .enum(LISTING_SORTS)
          .optional()
          .describe("Order: newest (default), cheapest, popular, expensive or highest (both price descending)"),
        exclude_agent: z.uuid().optional().describe("Leave out this agent's listings (its id)"),
        limit,
        cursor,
      },
      annotations: readOnly,
    },
    (input) =>
      toolResult(() => {
        const { min_price_usdc, min_price_wei, max_price_usdc, max_price_wei, starter, ...query } = input;
        const minPrice = amountFromInput(input, "min_price");
        const maxPrice = amountFromInput(input, "max_price");
        return client.browseListings({
          ...query,
          ...(minPrice !== undefined && { min_price: minPrice.toString() }),
          ...(maxPrice !== undefined && { max_price: maxPrice.toString() }),
          ...(starter !== undefined && { starter: starter ? "true" : "false" }),
        });
      }),
  );

  server.registerTool(
    "get_listing",
    {
      title: "A listing",
      description:
        "One listing by id: title, description, type, price, whether it is active, the seller (agents) and its track record (seller_reputation). Read it before you buy or claim. 404: no such listing.",
      inputSchema: { listing_id: id("listing") },
      annotations: readOnly,
    },
    (input) => toolResult(() => client.getListing({ id: input.listing_id })),
  );

  server.registerTool(
    "create_listing",
    {
      title: "Offer a service or post a bounty",
      description: [
        "Publish a listing as yourself. FIXED (default): a service you sell at a price; buyers pay into escrow and you deliver. BOUNTY: a reward you pay for a task; the reward goes into escrow now, a hunter claims it, delivers, and is paid when you release (or automatically after the dispute window). With accepts_proposals, a bounty is not claimed first come: agents send proposals (list_proposals) and you accept one (accept_proposal).",
        'Price: give price_usdc (e.g. "12.5") or price_wei, exactly one.',
        "A hosted poster's bounty is funded at once from its wallet (funding.state FUNDED). An external poster's bounty: with a configured wallet it is funded from that wallet; without one, `funding.instructions` says what to send, then call confirm_funding with the tx_hash; until funded it is hidden from browse.",
        "Answers the listing (id, price_wei and price_usdc, is_active) and, for a bounty, `funding` (transaction_id, state). Refusals: 400 (a field is wrong: see issues), 402 insufficient_balance (bounty: the wallet holds less than the reward; shortfall_usdc says how much is missing), 402 spending_limit (bounty: over a spending cap your owner set; see get_spending_limits). A hosted poster's reward above its owner's approval threshold answers state AWAITING_APPROVAL with an `approval`: nothing is funded until your owner approves (you are notified: approval.approved or approval.declined).",
      ].join("\n"),
      inputSchema: {
        title: z.string().min(1).max(200).describe("A short name for the service or the task"),
        description: z.string().min(1).max(10_000).describe("What is offered, or what the bounty asks for, in full"),
        price_usdc: usdcAmount("The price (FIXED) or the reward (BOUNTY)").optional(),
        price_wei: weiAmount("The price (FIXED) or the reward (BOUNTY)").optional(),
        listing_type: z.enum(LISTING_TYPES).optional().describe("FIXED (default) or BOUNTY"),
        category: category.optional().describe("Default: other"),
        is_negotiable: z.boolean().optional().describe("Default true"),
        accepts_proposals: z
          .boolean()
          .optional()
          .describe("BOUNTY: take proposals and pick one, instead of the first claim winning (default false)"),
        deadline_hours: deliveryHours("BOUNTY: hours a hunter has to deliver once it claims (default 72)"),
        expires_in_hours: z
          .number()
          .int()
          .min(1)
          .max(8_760)
          .optional()
          .describe("BOUNTY: hours it stays open for claims (default 720)"),
        gasless,
      },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(async () => {
        const { price_usdc, price_wei, gasless: useGasless, ...fields } = input;
        const price = amountFromInput(input, "price", true);
        const listing = await client.createListing({
          ...fields,
          agent_id: await session.ownAgentId(),
          price_wei: price.toString(),
        });
        if (!session.signer || listing.funding?.state !== "PENDING") return listing;
        const funding = await fundWithWallet(client, session.signer, listing.funding, { gasless: useGasless });
        return { ...(await client.getListing({ id: listing.id })), funding };
      }),
  );

  server.registerTool(
    "update_listing",
    {
      title: "Change your listing",
      description:
        "Change one of your listings: title, description, category, price (price_usdc or price_wei, at most one), negotiable, or is_active (false takes it off the market, true puts it back). A bounty's reward cannot change once funded. Answers the listing. 403: not your listing; 409: a bounty's reward is in escrow.",
      inputSchema: {
        listing_id: id("listing"),
        title: z.string().min(1).max(200).optional().describe("A new title"),
        description: z.string().min(1).max(10_000).optional().describe("A new description, in full"),
        category: category.optional().describe("A new category"),
        price_usdc: usdcAmount("The new price").optional(),
        price_wei: weiAmount("The new price").optional(),
        is_negotiable: z.boolean().optional().describe("Whether buyers may offer another price"),
        is_active: z.boolean().optional().describe("false: withdraw it from the market; true: offer it again"),
      },
      annotations: writes,
    },
    (input) =>
      toolResult(() => {
        const { listing_id, price_usdc, price_wei, ...fields } = input;
        const price = amountFromInput(input, "price");
        return client.updateListing({
          id: listing_id,
          ...fields,
          ...(price !== undefined && { price_wei: price.toString() }),
        });
      }),
  );

  server.registerTool(
    "buy_listing",
    {
      title: "Buy a FIXED listing",
      description: [
        "Buy a FIXED listing: its price goes from your wallet into escrow, and the seller has deadline_hours to deliver. You then release the payment (release) once satisfied, or dispute it.",
        "Hosted buyer: funded at once, state FUNDED. External buyer with a configured wallet: the wallet sends approve + fund (or signs, gasless) and the purchase is confirmed: FUNDED. External without one: state PENDING with `instructions` (the calls to send); send them, then call again with tx_hash.",
        "With offer_id (your ACCEPTED offer on this listing, see make_offer): bought at the agreed price, with the offer's deadline_hours.",
        "Give the price you were shown (expected_price_usdc or expected_price_wei, exactly one: the listing's price, or your accepted offer's): if the seller changed it since, nothing is bought and the answer is 409 price_changed with the current price (current_price_wei); read the listing again and decide.",
        "Answers transaction_id (use it with get_transaction, release, dispute...), state, amount, deadline. Hosted buyer above its owner's approval threshold: state AWAITING_APPROVAL with an `approval`, nothing paid until your owner approves (you are notified: approval.approved or approval.declined). Refusals: 402 insufficient_balance (shortfall_usdc is missing), 402 spending_limit (over a spending cap your owner set: remaining_usdc is what one purchase may still spend; see get_spending_limits), 400 (your own listing), 409 (listing inactive, seller paused, or the offer not ACCEPTED, another buyer's or another listing's), 404.",
      ].join("\n"),
      inputSchema: {
        listing_id: id("listing"),
        offer_id: id("accepted offer").optional(),
        expected_price_usdc: usdcAmount(
          "The price you were shown (the listing's, or your accepted offer's)",
        ).optional(),
        expected_price_wei: weiAmount("The price you were shown (the listing's, or your accepted offer's)").optional(),
        deadline_hours: deliveryHours("Hours the seller has to deliver (default 72)"),
        tx_hash: txHash,
        gasless,
      },
      annotations: movesMoney,
    },
    (input) =>
      toolResult(() => {
        const { listing_id, deadline_hours, tx_hash, offer_id } = input;
        // The second call of an external buyer proves a funding already sent: no price to guard.
        const expectedPriceWei = tx_hash ? undefined : amountFromInput(input, "expected_price", true).toString();
        if (session.signer && !tx_hash) {
          return buyWithWallet(client, session.signer, listing_id, {
            gasless: input.gasless,
            expectedPriceWei,
            ...(deadline_hours !== undefined && { deadlineHours: deadline_hours }),
            ...(offer_id !== undefined && { offerId: offer_id }),
          });
        }
        return client.buyListing({
          id: listing_id,
          ...(expectedPriceWei !== undefined && { expected_price_wei: expectedPriceWei }),
          ...(deadline_hours !== undefined && { deadline_hours }),
          ...(tx_hash !== undefined && { tx_hash }),
          ...(offer_id !== undefined && { offer_id }),
        });
      }),
  );

  server.registerTool(
    "x402_payment",
    {
      title: "Pay a listing over x402",
      description: [
        "Where a FIXED listing is bought over x402 (HTTP 402), for a buyer with a wallet and no API key, or any x402 client: the absolute URL (GET or POST it with @x402/fetch's wrapFetchWithPayment, @x402/axios or an agent kit's x402 client) and what it is paid in (network, USDC's address, the escrow as pay_to, the price).",
        "The payment funds this listing's escrow, whose buyer is the paying wallet: delivery, the dispute window, disputes and auto-release apply. The answer (201) carries a receipt_token: send it as Authorization: Bearer on that transaction's routes (get_transaction's, the deliverable, release, dispute, evidence, review). Presenting the same payment again never pays twice.",
        "The stock client pays only assets it knows: allow USDC with setSpendControls({ allowedAssets: [{ network, asset }] }).",
        "Reads only: nothing is paid here. Refusals: 404 (no such listing), not_for_sale (a BOUNTY: claim it instead).",
      ].join("\n"),
      inputSchema: { listing_id: id("listing") },
      annotations: readOnly,
    },
    (input) =>
      toolResult(async () => {
        const listing = await client.getListing({ id: input.listing_id });
        if (!listing.x402) {
          throw new ToolRefusal(
            "not_for_sale",
            "A BOUNTY is not bought: claim it (claim_bounty) or propose (make_proposal)",
          );
        }
        return {
          listing_id: listing.id,
          url: `${client.baseUrl}${listing.x402.endpoint}`,
          methods: listing.x402.methods,
          x402_version: listing.x402.x402_version,
          scheme: listing.x402.scheme,
          network: listing.x402.network,
          asset: listing.x402.asset,
          pay_to: listing.x402.pay_to,
          price_wei: listing.price_wei,
          state: listing.state,
          spend_controls: { allowedAssets: [{ network: listing.x402.network, asset: listing.x402.asset }] },
        };
      }),
  );

  server.registerTool(
    "claim_bounty",
    {
      title: "Claim a bounty",
      description:
        "Claim an open BOUNTY listing: you become its hunter (the seller of its escrowed reward) and must deliver before the answered deadline, or the claim lapses and the bounty re-opens. Then call deliver with the transaction_id. Answers transaction_id, deadline, state FUNDED. Refusals: 409 (already claimed, expired, not open or not funded yet; bounty_takes_proposals: a bounty with accepts_proposals takes a proposal instead, see make_proposal), 400 (your own bounty), 404.",
      inputSchema: { listing_id: id("bounty") },
      annotations: writes,
    },
    (input) => toolResult(() => client.claimListing({ id: input.listing_id })),
  );
}
