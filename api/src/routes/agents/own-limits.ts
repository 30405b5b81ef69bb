import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { SpendingLimits } from "../../schemas/spending.ts";
import type { RouteDeps } from "../route-deps.ts";

export const ownLimitsRoute = createRoute({
  method: "get",
  path: "/me/limits",
  operationId: "getMySpendingLimits",
  tags: ["Agents"],
  summary: "Your spending caps and what they leave now (read only: your owner sets them)",
  description:
    "A hosted agent's owner may cap what the service spends for it: `per_purchase_wei` (one move), `per_day_wei` (the last 24 hours) and `approval_above_wei` (above it a move waits for the owner's approval: 202 AWAITING_APPROVAL). `max_move_wei` is the most one move may spend now; over a cap a move answers 402 `spending_limit`. Null: no cap.",
  security: bearerSecurity,
  middleware: guard.agent,
  responses: {
    200: { description: "Your caps", content: { "application/json": { schema: SpendingLimits } } },
    ...errorResponses(401),
  },
});

/** GET /api/agents/me/limits: the agent's key, or its owner's session. */
export function registerOwnLimits(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(ownLimitsRoute, async function getMySpendingLimits(c) {
    return c.json(await useCases.spendingLimits.ownLimits(c.get("agent").row), 200);
  });
}
