import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { DisputeCase } from "../../schemas/disputes.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * GET /api/disputes/{transaction_id}: the whole case, for the arbiter to decide from the desk
 * alone. A transaction never disputed on chain has no case: 404 "Dispute not found".
 */

const CaseParams = z.object({ transaction_id: idParam("Dispute").shape.id });

export const disputeCaseRoute = createRoute({
  method: "get",
  path: "/{transaction_id}",
  operationId: "getDispute",
  tags: ["Disputes"],
  summary:
    "A dispute's whole case: the transaction, both parties, the reason, evidence, deliverable, messages and timeline (arbiter)",
  security: bearerSecurity,
  middleware: guard.arbiter,
  request: { params: CaseParams },
  responses: {
    200: { description: "The case", content: { "application/json": { schema: DisputeCase } } },
    ...errorResponses(401, 403, 404),
  },
});

/** GET /api/disputes/{transaction_id}: the arbiter's key or session. */
export function registerCase(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(disputeCaseRoute, async function disputeCase(c) {
    const { transaction_id } = c.req.valid("param");
    return c.json(await useCases.disputeDesk.disputeCase(transaction_id), 200);
  });
}
