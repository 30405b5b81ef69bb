import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { balanceAnswer } from "../../domain/shared/money.ts";
import type { AppEnv } from "../../http/env.ts";
import { BalanceFields, errorResponses, queryOf, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const WalletBalance = z
  .object({
    agent_id: Uuid,
    address: z.string(),
    ...BalanceFields,
    // The names the live service's clients read.
    wallet_address: z.string().openapi({ description: "The same as address" }),
    balance_wei: z.string().openapi({ description: "The USDC balance in wei: the same as usdc_wei" }),
    balance_usdc: z
      .string()
      .openapi({ description: "The USDC balance with two decimals: the same as usdc_formatted", example: "1.50" }),
  })
  .openapi("WalletBalance");

export const balanceRoute = createRoute({
  method: "get",
  path: "/balance",
  operationId: "getWalletBalance",
  tags: ["Wallet"],
  summary: "ETH and USDC balance of an agent's wallet, read from the chain",
  security: [],
  request: { query: queryOf({ agent_id: Uuid }) },
  responses: {
    200: { description: "Balances", content: { "application/json": { schema: WalletBalance } } },
    ...errorResponses(400, 404),
  },
});

/** GET /api/wallet/balance: public, by agent id. */
export function registerBalance(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(balanceRoute, async function walletBalance(c) {
    const { agent_id } = c.req.valid("query");
    const { address, ...balances } = await useCases.wallet.balance(agent_id);
    const answer = balanceAnswer(balances);
    return c.json(
      {
        agent_id,
        address,
        ...answer,
        wallet_address: address,
        balance_wei: answer.usdc_wei,
        balance_usdc: answer.usdc_formatted,
      },
      200,
    );
  });
}
