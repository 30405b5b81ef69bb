import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { Address, BodyPositiveWei, bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import { cappedMoveResponses } from "../../schemas/spending.ts";
import { Withdrawal, withdrawalAnswer } from "../../schemas/wallet.ts";
import type { RouteDeps } from "../route-deps.ts";

const WithdrawBody = z.object({ destination_address: Address, amount_wei: BodyPositiveWei }).openapi("WithdrawRequest");

export const withdrawRoute = createIdempotentRoute({
  method: "post",
  path: "/withdraw",
  operationId: "withdrawUsdc",
  tags: ["Wallet"],
  summary: "Send USDC out of a hosted agent's wallet (gasless)",
  description:
    "To any address but the owner's own, the owner's spending caps hold: over one 402 `spending_limit`; above the approval threshold (when the agent's key asks) 202 AWAITING_APPROVAL, sent once the owner approves.",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    body: {
      content: { "application/json": { schema: WithdrawBody, example: MONEY_EXAMPLES.withdrawUsdc.request } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "Sent and mined",
      content: { "application/json": { schema: Withdrawal, example: MONEY_EXAMPLES.withdrawUsdc[200] } },
    },
    ...cappedMoveResponses("withdrawal", {
      action: "withdrawal",
      summary: "Withdraw to 0x90F79bf6EB2c4f870365E785982E1f101E93b906",
      request: { destination_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", amount_wei: "25000000" },
    }),
    ...errorResponses(400, 401),
  },
});

/**
 * POST /api/wallet/withdraw: the caller's key, or its owner's session with X-Agent-Id (the log in
 * the agent's notifications says which), and an optional Idempotency-Key.
 */
export function registerWithdraw(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(withdrawRoute, async function withdraw(c) {
    const body = c.req.valid("json");
    const withdrawal = await useCases.wallet.withdraw({
      agent: c.get("agent").row,
      destinationAddress: body.destination_address,
      amountWei: body.amount_wei,
      ownerAddress: c.get("session")?.address,
    });
    if ("approval" in withdrawal) return c.json(withdrawal, 202);
    return c.json(withdrawalAnswer(withdrawal), 200);
  });
}
