import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { BodyWei, bearerSecurity, errorResponses, TxHash, Uuid } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import { FundingInstructions } from "../../schemas/funding.ts";
import { cappedMoveResponses } from "../../schemas/spending.ts";
import type { RouteDeps } from "../route-deps.ts";
import { spendOrigin } from "../spend-origin.ts";

const BuyBody = z
  .object({
    buyer_agent_id: Uuid.optional().openapi({ description: "The caller's agent id (optional; must be the caller)" }),
    deadline_hours: z.number().int().min(1).max(720).default(72).openapi({
      description: "Hours the seller has to deliver (1 to 720, default 72)",
    }),
    offer_id: Uuid.optional().openapi({
      description:
        "Your ACCEPTED offer on this listing: bought at its price, with its deadline_hours (409 if it is not ACCEPTED, another buyer's or another listing's)",
    }),
    expected_price_wei: BodyWei.optional().openapi({
      description:
        "The price you saw, in USDC wei (the listing's price_wei, or your accepted offer's): if the purchase would charge another, 409 with code price_changed and the current price, and nothing is sent. Clients should always send it.",
      example: "5000000",
    }),
    tx_hash: TxHash.optional().openapi({
      description: "Second call of an external buyer: the transaction that funded the escrow",
    }),
  })
  .openapi("BuyRequest");

const HostedBuy = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    tx_hash: z.string(),
    state: z.literal("FUNDED"),
    message: z.string(),
  })
  .openapi("FundedPurchase");

const ExternalBuy = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    contract_address: z.string(),
    seller_address: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    deadline_hours: z.number().int(),
    instructions: FundingInstructions,
    state: z.literal("PENDING"),
  })
  .openapi("PendingPurchase");

export const buyRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/buy",
  operationId: "buyListing",
  tags: ["Listings"],
  summary: "Buy a FIXED listing into a funded escrow",
  description:
    "Send `expected_price_wei`, the price you saw: a price changed since then answers 409 `price_changed` with the current price, and nothing is sent. Hosted buyer: the service funds the escrow from the agent's wallet (gasless) and answers FUNDED. A hosted buyer's owner may cap its spending: over a cap 402 `spending_limit`, above the owner's approval threshold 202 AWAITING_APPROVAL (bought once the owner approves). External buyer: the first call answers PENDING with the calls to send from the buyer's wallet (or EIP-3009 typed data to sign); the second call with `tx_hash` verifies the funding and answers FUNDED.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Listing"),
    body: {
      content: { "application/json": { schema: BuyBody, example: MONEY_EXAMPLES.buyListing.request } },
      required: false,
    },
  },
  responses: {
    200: {
      description: "Funded (hosted buyer, or an external buyer's second call)",
      content: { "application/json": { schema: HostedBuy, example: MONEY_EXAMPLES.buyListing[200] } },
    },
    201: {
      description: "Pending: an external buyer's instructions",
      content: { "application/json": { schema: ExternalBuy, example: MONEY_EXAMPLES.buyListing[201] } },
    },
    ...cappedMoveResponses("purchase", {
      action: "buy",
      summary: 'Buy "Logo design" from Studio',
      request: {
        listing_id: "2c7e5a9b-3f1d-4a6c-b8e2-9d0f4b1a6c35",
        deadline_hours: 72,
        expected_price_wei: "25000000",
      },
    }),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** POST /api/listings/{id}/buy: the buyer's key (and an optional Idempotency-Key). */
export function registerBuy(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(buyRoute, async function buyListing(c) {
    const { id } = c.req.valid("param");
    // Without a JSON body the validator hands over {}: parsed here for the defaults.
    const body = BuyBody.parse(c.req.valid("json") ?? {});
    const purchase = await useCases.purchases.buy(c.get("agent").row, id, {
      buyerAgentId: body.buyer_agent_id,
      deadlineHours: body.deadline_hours,
      offerId: body.offer_id,
      txHash: body.tx_hash as Hex | undefined,
      expectedPriceWei: body.expected_price_wei,
      origin: spendOrigin(c.get("session")),
    });
    if (purchase.state === "AWAITING_APPROVAL") return c.json(purchase, 202);
    return purchase.state === "FUNDED" ? c.json(purchase, 200) : c.json(purchase, 201);
  });
}
