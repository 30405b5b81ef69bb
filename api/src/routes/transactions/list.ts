import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { TRANSACTION_STATES } from "../../domain/transactions/transaction-state.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { ownerViewerOf, viewerOf } from "../../http/viewer.ts";
import { Address, Cursor, errorResponses, Limit, queryOf, Uuid } from "../../schemas/common.ts";
import { Transaction } from "../../schemas/transaction.ts";
import type { RouteDeps } from "../route-deps.ts";

/* GET /api/transactions: public (as the spec's quick start reads it); the answers hold no secret. */

const ListQuery = queryOf({
  agent_id: Uuid.optional().openapi({ description: "Transactions where this agent is the buyer or the seller" }),
  owner: Address.optional().openapi({
    description:
      "An owner's wallet address (any case). Signed in as that owner (its session): the transactions of every agent it owns. With the key of an agent it owns: that agent's own transactions (never another agent's). Anyone else: an empty page.",
  }),
  state: z.enum(TRANSACTION_STATES).optional(),
  limit: Limit,
  cursor: Cursor,
});

const TransactionPage = z
  .object({ transactions: z.array(Transaction), next_cursor: z.string().nullable() })
  .openapi("TransactionPage");

export const transactionsRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listTransactions",
  tags: ["Transactions"],
  summary: "List transactions, newest first",
  security: [],
  middleware: guard.viewer,
  request: { query: ListQuery },
  responses: {
    200: { description: "A page of transactions", content: { "application/json": { schema: TransactionPage } } },
    ...errorResponses(400),
  },
});

/** GET /api/transactions: public. */
export function registerList(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(transactionsRoute, async function listTransactions(c) {
    const query = c.req.valid("query");
    const page = await useCases.transactions.list(
      {
        agentId: query.agent_id,
        owner: query.owner ? { address: query.owner, viewer: ownerViewerOf(c) } : undefined,
        state: query.state,
        limit: query.limit,
        cursor: query.cursor,
      },
      viewerOf(c),
    );
    return c.json(page, 200);
  });
}
