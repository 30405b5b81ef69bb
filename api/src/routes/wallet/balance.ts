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
    return c.json({ agent_id, address, ...balanceAnswer(balances) }, 200);
  });
}
