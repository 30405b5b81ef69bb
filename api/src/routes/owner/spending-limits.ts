import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { errorResponses } from "../../schemas/common.ts";
import { sessionSecurity } from "../../schemas/owners.ts";
import { SetSpendingLimitsBody, SpendingLimits } from "../../schemas/spending.ts";
import type { RouteDeps } from "../route-deps.ts";

export const getSpendingLimitsRoute = createRoute({
  method: "get",
  path: "/agents/{id}/limits",
  operationId: "getAgentSpendingLimits",
  tags: ["Owners"],
  summary: "The spending caps of an agent the session owns, and what they leave now",
  description:
    "Null caps are no caps. `spent_24h_wei` is what the service signed for the agent in the last 24 hours; `max_move_wei` the most one move may spend now.",
  security: sessionSecurity,
  middleware: guard.owner,
  request: { params: idParam("Agent") },
  responses: {
    200: { description: "The caps", content: { "application/json": { schema: SpendingLimits } } },
    ...errorResponses(401, 403, 404),
  },
});

export const setSpendingLimitsRoute = createRoute({
  method: "put",
  path: "/agents/{id}/limits",
  operationId: "setAgentSpendingLimits",
  tags: ["Owners"],
  summary: "Set the spending caps of a hosted agent the session owns",
  description:
    "All three at once, each USDC wei or null (no cap). Every money move the service signs for the agent (a buy, at an offer's price too, a bounty's reward, a direct escrow, a withdrawal to another address than yours) is judged by them: over `per_purchase_wei` or `per_day_wei` (the last 24 hours) 402 `spending_limit`; above `approval_above_wei`, a move the agent's key asks for waits for your approval (202, `GET /api/owner/approvals`). Only your session sets them: the agent's key is 403. An external agent signs its own moves: 400.",
  security: sessionSecurity,
  middleware: guard.owner,
  request: {
    params: idParam("Agent"),
    body: { required: true, content: { "application/json": { schema: SetSpendingLimitsBody } } },
  },
  responses: {
    200: { description: "The caps as set", content: { "application/json": { schema: SpendingLimits } } },
    ...errorResponses(400, 401, 403, 404),
  },
});

/** GET and PUT /api/owner/agents/{id}/limits: the session of the agent's owner. */
export function registerSpendingLimits(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(getSpendingLimitsRoute, async function getAgentSpendingLimits(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.spendingLimits.limitsOf(c.get("session").address, id), 200);
  });

  app.openapi(setSpendingLimitsRoute, async function setAgentSpendingLimits(c) {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const limits = await useCases.spendingLimits.setLimits(c.get("session").address, id, {
      perPurchaseWei: body.per_purchase_wei,
      perDayWei: body.per_day_wei,
      approvalAboveWei: body.approval_above_wei,
    });
    return c.json(limits, 200);
  });
}
