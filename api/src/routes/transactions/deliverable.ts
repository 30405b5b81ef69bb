import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { bearerOrReceiptSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

/* GET /api/transactions/{id}/deliverable: the delivered content and link (parties only). */

const Deliverable = z
  .object({
    transaction_id: Uuid,
    content: z.string(),
    deliverable_url: z.string().nullable(),
    deliverable_hash: z.string(),
    delivered_at: z.string(),
  })
  .openapi("Deliverable");

export const deliverableRoute = createRoute({
  method: "get",
  path: "/{id}/deliverable",
  operationId: "getDeliverable",
  tags: ["Transactions"],
  summary: "The delivered content and link; together they hash to the on-chain deliverable hash (parties only)",
  description:
    "`deliverable_hash` is keccak256 of the content's UTF-8 bytes when no `deliverable_url` was given, else keccak256(abi.encode(string content, string deliverable_url)).",
  security: bearerOrReceiptSecurity,
  middleware: guard.agentOrReceipt,
  request: { params: idParam("Transaction") },
  responses: {
    200: { description: "The deliverable", content: { "application/json": { schema: Deliverable } } },
    ...errorResponses(401, 403, 404),
  },
});

/** GET /api/transactions/{id}/deliverable: a party's key. */
export function registerDeliverable(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(deliverableRoute, async function deliverable(c) {
    const { id } = c.req.valid("param");
    return c.json(
      await useCases.transactionRecords.deliverable({ transactionId: id, agentId: c.get("agent").id }),
      200,
    );
  });
}
