import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, queryOf } from "../../schemas/common.ts";
import { DISPUTE_STATUSES, DisputeQueue } from "../../schemas/disputes.ts";
import type { RouteDeps } from "../route-deps.ts";

/* GET /api/disputes: the arbiter's queue, oldest dispute first. */

const QueueQuery = queryOf({
  status: z
    .enum(DISPUTE_STATUSES)
    .default("open")
    .openapi({ description: "open: DISPUTED on chain, waiting for a ruling (default); resolved: ruled" }),
  limit: Limit,
  cursor: Cursor,
});

export const disputeQueueRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listDisputes",
  tags: ["Disputes"],
  summary: "The dispute queue, oldest first (arbiter)",
  security: bearerSecurity,
  middleware: guard.arbiter,
  request: { query: QueueQuery },
  responses: {
    200: { description: "A page of disputes", content: { "application/json": { schema: DisputeQueue } } },
    ...errorResponses(400, 401, 403),
  },
});

/** GET /api/disputes: the arbiter's key or session. */
export function registerQueue(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(disputeQueueRoute, async function disputeQueue(c) {
    const { status, limit, cursor } = c.req.valid("query");
    return c.json(await useCases.disputeDesk.queue({ status, limit, cursor }), 200);
  });
}
