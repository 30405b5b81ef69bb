import { z } from "@hono/zod-openapi";
import { WITHDRAWAL_STATES, type Withdrawal as WithdrawalOf } from "../domain/wallet/wallet.ts";
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
