import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import { idParam } from "../../http/params.ts";
import { errorResponses } from "../../schemas/common.ts";
import { Transaction } from "../../schemas/transaction.ts";
import type { RouteDeps } from "../route-deps.ts";

/* GET /api/transactions/{id}: public, like the list. */

export const route = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["Transactions"],
  summary: "One transaction, with its escrow",
  request: { params: idParam("Transaction") },
  responses: {
    200: { description: "The transaction", content: { "application/json": { schema: Transaction } } },
    ...errorResponses(404),
  },
});

export function detailRoutes({ useCases }: RouteDeps) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(route, async function getTransaction(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.transactions.get(id), 200);
  });
}
