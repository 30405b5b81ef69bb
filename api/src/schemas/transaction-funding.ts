import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.ts";

/** A transaction's escrow once funded: the answer of a hosted buyer's create and of every confirm. */
export const FundedTransaction = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    state: z.literal("FUNDED"),
    tx_hash: z.string(),
  })
  .openapi("FundedTransaction");
