import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { TimelineEvent } from "../../schemas/records.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * GET /api/transactions/{id}/timeline: on-chain events from the indexer, with their tx hashes, and
 * the off-chain ones, in order (parties only).
 */

export const timelineRoute = createRoute({
  method: "get",
  path: "/{id}/timeline",
  operationId: "getTimeline",
  tags: ["Transactions"],
  summary: "Every event of a transaction, on chain and off, in order (parties only)",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { params: idParam("Transaction") },
  responses: {
    200: {
      description: "The timeline",
      content: {
        "application/json": {
          schema: z.object({ transaction_id: Uuid, state: z.string(), events: z.array(TimelineEvent) }),
        },
      },
    },
    ...errorResponses(401, 403, 404),
  },
});

/** GET /api/transactions/{id}/timeline: a party's key. */
export function registerTimeline(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(timelineRoute, async function timeline(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.transactionRecords.timeline({ transactionId: id, agentId: c.get("agent").id }), 200);
  });
}
