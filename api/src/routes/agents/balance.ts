import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { balanceAnswer } from "../../domain/shared/money.ts";
import type { AppEnv } from "../../http/env.ts";
import { Address, BalanceFields, errorResponses, queryOf } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const Balance = z
  .object({
    address: z.string(),
    ...BalanceFields,
  })
  .openapi("Balance");

export const balanceRoute = createRoute({
  method: "get",
  path: "/balance",
  operationId: "getAddressBalance",
  tags: ["Agents"],
  summary: "ETH and USDC balance of an address, read from the chain",
  security: [],
  request: { query: queryOf({ address: Address }) },
  responses: {
    200: { description: "Balances", content: { "application/json": { schema: Balance } } },
    ...errorResponses(400),
  },
});

/** GET /api/agents/balance: public, by address. */
export function registerBalance(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(balanceRoute, async function addressBalance(c) {
    const { address } = c.req.valid("query");
    return c.json({ address, ...balanceAnswer(await useCases.agents.balance(address)) }, 200);
  });
}
