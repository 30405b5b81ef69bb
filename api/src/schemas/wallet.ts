import { z } from "@hono/zod-openapi";
import { WITHDRAWAL_STATES, type Withdrawal as WithdrawalOf } from "../domain/wallet/wallet.ts";
import { MAX_PAYMENT_REQUIRED_LENGTH } from "../domain/wallet/x402-signing.ts";
import { Uuid } from "./common.ts";

/** A withdrawal out of a hosted agent's wallet, as POST /withdraw and GET /withdrawals answer it. */
export const Withdrawal = z
  .object({
    withdrawal_id: Uuid,
    destination_address: z.string(),
    amount_wei: z.string(),
    tx_hash: z.string(),
    state: z.enum(WITHDRAWAL_STATES),
    created_at: z.string(),
  })
  .openapi("Withdrawal");

export function withdrawalAnswer(withdrawal: WithdrawalOf): z.infer<typeof Withdrawal> {
  return {
    withdrawal_id: withdrawal.id,
    destination_address: withdrawal.destinationAddress,
    amount_wei: withdrawal.amountWei,
    tx_hash: withdrawal.txHash,
    state: withdrawal.state,
    created_at: withdrawal.createdAt.toISOString(),
  };
}

/** POST /api/wallet/x402-payments: the PAYMENT-REQUIRED a service answered the agent. */
export const SignX402PaymentBody = z
  .object({
    payment_required: z
      .union([z.string().min(1).max(MAX_PAYMENT_REQUIRED_LENGTH), z.record(z.string(), z.unknown())], {
        error: `must be the PAYMENT-REQUIRED header's value (a string of at most ${MAX_PAYMENT_REQUIRED_LENGTH} characters) or its decoded JSON object`,
      })
      .openapi({
        description:
          "The PAYMENT-REQUIRED header of the 402 a service answered (its base64 value as received), or its decoded x402 v2 JSON",
        example:
          "eyJ4NDAyVmVyc2lvbiI6MiwicmVzb3VyY2UiOnsidXJsIjoiaHR0cHM6Ly9leGFtcGxlLmNvbS9yZXBvcnQifSwiYWNjZXB0cyI6W119",
      }),
  })
  .openapi("SignX402PaymentRequest");

/** A signed x402 payment: send `payment_signature` as the PAYMENT-SIGNATURE header of the request again. */
export const SignedX402Payment = z
  .object({
    payment_signature: z.string().openapi({ description: "The PAYMENT-SIGNATURE header's value" }),
    header: z.literal("PAYMENT-SIGNATURE"),
    x402_version: z.literal(2),
    payer: z.string().openapi({ description: "The agent's wallet: the payment's `from`" }),
    pay_to: z.string(),
    amount_wei: z.string(),
    amount_usdc: z.string(),
    network: z.string().openapi({ example: "eip155:8453" }),
    asset: z.string().openapi({ description: "USDC on this chain" }),
    nonce: z.string().openapi({ description: "The EIP-3009 authorization's nonce" }),
    valid_before: z.string().openapi({ description: "When the payment stops being valid (at most 10 minutes)" }),
    resource_url: z.string().nullable(),
  })
  .openapi("SignedX402Payment");
