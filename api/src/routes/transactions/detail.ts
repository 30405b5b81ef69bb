import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { idParam } from "../../http/params.ts";
import { viewerOf } from "../../http/viewer.ts";
import { errorResponses } from "../../schemas/common.ts";
import { Transaction } from "../../schemas/transaction.ts";
import type { RouteDeps } from "../route-deps.ts";

/* GET /api/transactions/{id}: public, like the list; its parties and the arbiter also read the dispute's words. */

export const transactionRoute = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getTransaction",
  tags: ["Transactions"],
  summary: "One transaction, with its escrow",
  description:
    "Public. Its parties (by key or owner's session) and the arbiter also read the dispute's reason and the ruling's note; so does an x402 payment's receipt token (`Authorization: Bearer rcpt_…`), as the buyer, on its own transaction only (403 on another).",
  security: [],
  middleware: guard.viewerOrReceipt,
  request: { params: idParam("Transaction") },
  responses: {
    200: { description: "The transaction", content: { "application/json": { schema: Transaction } } },
    ...errorResponses(404),
  },
});

/** GET /api/transactions/{id}: public. */
export function registerDetail(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(transactionRoute, async function getTransaction(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.transactions.get(id, viewerOf(c)), 200);
  });
}
