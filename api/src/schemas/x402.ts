import { z } from "@hono/zod-openapi";
import { TRANSACTION_STATES } from "../domain/transactions/transaction-state.ts";
import { MAX_TIMEOUT_SECONDS, X402_VERSION } from "../domain/x402/payment-requirements.ts";
import { Uuid } from "./common.ts";

/*
 * The x402 v2 shapes this API answers (@x402/core's PaymentRequirements and PaymentRequired; the
 * headers carry them base64-encoded, the 402's body as JSON too), and the x402 purchase.
 */

export const X402PaymentRequirements = z
  .object({
    scheme: z.string().openapi({ example: "exact" }),
    network: z.string().openapi({ description: "CAIP-2: `eip155:<chain id>`", example: "eip155:8453" }),
    asset: z.string().openapi({ description: "USDC's address on this chain" }),
    amount: z.string().openapi({ description: "The listing's price, in USDC wei (6 decimals)", example: "5000000" }),
    payTo: z.string().openapi({ description: "The escrow contract: the payment becomes this listing's escrow" }),
    maxTimeoutSeconds: z
      .number()
      .int()
      .openapi({
        description: `How long the authorization may stay valid (${MAX_TIMEOUT_SECONDS} s): one valid for longer is refused`,
      }),
    extra: z.record(z.string(), z.unknown()).openapi({
      description:
        "`name` and `version`: USDC's EIP-712 domain, which the client signs over; `listingId`; `seller` (the escrow's seller); `deadlineHours` (hours the seller has to deliver once paid); `disputeWindowSeconds`",
      example: {
        name: "USD Coin",
        version: "2",
        listingId: "0b7e3c52-8d6f-4a4e-9f3e-2f6b1c9d8a70",
        seller: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        deadlineHours: 72,
        disputeWindowSeconds: 86400,
      },
    }),
  })
  .openapi("X402PaymentRequirements");

export const X402PaymentRequired = z
  .object({
    x402Version: z.number().int().openapi({ example: X402_VERSION }),
    error: z.string().openapi({ description: "Why payment is asked (again): a refused payment's reason" }),
    code: z.string().openapi({ description: "`payment_required` (no payment) or `payment_invalid` (refused)" }),
    reason: z.string().optional().openapi({ description: "payment_invalid: why the payment was refused" }),
    resource: z.object({ url: z.string(), description: z.string().optional(), mimeType: z.string().optional() }),
    accepts: z.array(X402PaymentRequirements),
    request_id: z.string().optional(),
  })
  .openapi("X402PaymentRequired", {
    description:
      "The PAYMENT-REQUIRED header's PaymentRequired (x402 v2), as JSON: sign `accepts[0]` with a stock x402 client and send it again in PAYMENT-SIGNATURE",
  });

export const X402Purchase = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid.openapi({ description: "The transaction's uuid, as the other purchase answers name it" }),
    escrow_id_bytes32: z.string().openapi({ description: "The escrow's id on chain: escrowIdOf(payer, nonce)" }),
    listing_id: Uuid,
    buyer_agent_id: Uuid.openapi({
      description: "The buyer of record: the agent whose wallet paid, or a keyless agent made for it",
    }),
    payer: z.string().openapi({ description: "The wallet that signed the payment: the escrow's buyer" }),
    seller_address: z.string(),
    amount_wei: z.string(),
    currency: z.string().openapi({ example: "USDC" }),
    deadline: z.string(),
    state: z.enum(TRANSACTION_STATES).openapi({ description: "FUNDED when just paid; a replay shows the state now" }),
    tx_hash: z.string().openapi({ description: "The settlement: the relayer's fundWithTransfer" }),
    receipt_token: z.string().optional().openapi({
      description:
        "`rcpt_…`, shown once, only to the request(s) that presented the payment while it was being settled: `Authorization: Bearer <receipt_token>` on this transaction's routes (GET it, its deliverable, release, dispute, evidence, review), nowhere else",
    }),
    message: z.string(),
  })
  .openapi("X402Purchase");
