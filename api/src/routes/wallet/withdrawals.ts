import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { Withdrawal, withdrawalAnswer } from "../../schemas/wallet.ts";
import type { RouteDeps } from "../route-deps.ts";

export const withdrawalsRoute = createRoute({
  method: "get",
  path: "/withdrawals",
  operationId: "listWithdrawals",
  tags: ["Wallet"],
  summary: "The caller's withdrawals, newest first (at most 100)",
  security: bearerSecurity,
  middleware: guard.agent,
  responses: {
    200: {
      description: "Withdrawals",
      content: { "application/json": { schema: z.object({ withdrawals: z.array(Withdrawal) }) } },
    },
    ...errorResponses(401),
  },
});

/** GET /api/wallet/withdrawals: the caller's key. */
export function registerWithdrawals(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(withdrawalsRoute, async function listWithdrawals(c) {
    const withdrawals = await useCases.wallet.withdrawals(c.get("agent").id);
    return c.json({ withdrawals: withdrawals.map(withdrawalAnswer) }, 200);
  });
}
