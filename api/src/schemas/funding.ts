import { z } from "@hono/zod-openapi";

/** Shapes shared by every route that funds an escrow (buy, direct create, confirm, bounties). */

export const ContractCall = z.object({
  to: z.string(),
  function: z.string(),
  args: z.record(z.string(), z.union([z.string(), z.number()])),
  data: z.string(),
});

export const FundingInstructions = z
  .object({
    chain_id: z.number().int(),
    contract_address: z.string(),
    token_address: z.string(),
    calls: z.array(ContractCall).openapi({ description: "Send these from the buyer's wallet, in order" }),
    complete_with: z.string(),
    gasless: z.object({
      typed_data: z.unknown().openapi({ description: "EIP-3009 ReceiveWithAuthorization to sign (EIP-712)" }),
      complete_with: z.string(),
    }),
  })
  .openapi("FundingInstructions");

export const InsufficientBalance = z
  .object({
    error: z.string(),
    code: z.literal("insufficient_balance"),
    required_wei: z.string(),
    balance_wei: z.string(),
    shortfall_wei: z.string(),
    wallet_address: z.string(),
    chain_id: z.number().int(),
    token: z.string(),
    request_id: z.string().optional(),
  })
  .openapi("InsufficientBalance");
