import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { decodeCursor, encodeCursor, isTimestampPosition } from "../db/cursor.ts";
import type { Deps } from "../deps.ts";
import { badRequest, notFound } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import { TRANSACTION_STATES } from "../domain/transaction-state.ts";
import { type EscrowLocation, queryTransactions, toTransaction } from "../domain/transactions.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { Cursor, errorResponses, Limit, Uuid } from "../schemas/common.ts";
import { Transaction } from "../schemas/transaction.ts";

/*
 * /api/transactions: list and detail, both public (as the spec's quick start reads them); the
 * answers hold no secret. The money-flow routes (create, deliver, release, ...) come later.
 */

const ListQuery = z.strictObject({
  agent_id: Uuid.optional().openapi({ description: "Transactions where this agent is the buyer or the seller" }),
  state: z.enum(TRANSACTION_STATES).optional(),
  limit: Limit,
  cursor: Cursor,
});

const TransactionPage = z
  .object({ transactions: z.array(Transaction), next_cursor: z.string().nullable() })
  .openapi("TransactionPage");

export function transactionRoutes(deps: Deps) {
  const { db, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const location: EscrowLocation = {
    chainId: chain.chainId,
    contractAddress: chain.deployment.contracts.AgentEscrow.address,
  };

  app.openapi(
    createRoute({
      method: "get",
      path: "/",
      tags: ["Transactions"],
      summary: "List transactions, newest first",
      request: { query: ListQuery },
      responses: {
        200: { description: "A page of transactions", content: { "application/json": { schema: TransactionPage } } },
        ...errorResponses(400),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      let after: { at: string; id: string } | undefined;
      if (query.cursor) {
        const cursor = decodeCursor(query.cursor);
        if (!isTimestampPosition(cursor.at) || !isUuid(cursor.id)) throw badRequest("Invalid cursor");
        after = { at: cursor.at, id: cursor.id };
      }
      const rows = await queryTransactions(db, chain.chainId, {
        agentId: query.agent_id,
        state: query.state,
        after,
        limit: query.limit + 1,
      });
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return c.json(
        {
          transactions: page.map((row) => toTransaction(row, location)),
          next_cursor:
            rows.length > query.limit && last ? encodeCursor({ at: last.position, id: last.transaction.id }) : null,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      tags: ["Transactions"],
      summary: "One transaction, with its escrow",
      request: { params: z.object({ id: z.string().openapi({ format: "uuid" }) }) },
      responses: {
        200: { description: "The transaction", content: { "application/json": { schema: Transaction } } },
        ...errorResponses(404),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!isUuid(id)) throw notFound("Transaction");
      const [row] = await queryTransactions(db, chain.chainId, { id, limit: 1 });
      if (!row) throw notFound("Transaction");
      return c.json(toTransaction(row, location), 200);
    },
  );

  return app;
}
