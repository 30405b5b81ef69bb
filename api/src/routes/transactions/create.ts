import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { BodyEscrowWei, bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import { FundingInstructions } from "../../schemas/funding.ts";
import { cappedMoveResponses } from "../../schemas/spending.ts";
import { FundedTransaction } from "../../schemas/transaction-funding.ts";
import type { RouteDeps } from "../route-deps.ts";
import { spendOrigin } from "../spend-origin.ts";

/*
 * POST /api/transactions: an escrow between two agents without a listing, funded as a purchase
 * is (hosted buyer: at once; external buyer: instructions, then POST /{id}/confirm).
 */

const CreateBody = z
  .object({
    buyer_agent_id: Uuid.openapi({ description: "The caller's agent: the buyer" }),
    seller_agent_id: Uuid,
    amount_wei: BodyEscrowWei,
    currency: z.literal("USDC").default("USDC"),
    description: z.string().max(2_000).default(""),
    deadline_hours: z.number().int().min(1).max(720).default(72),
  })
  .openapi("CreateTransactionRequest");

const PendingTransaction = z
  .object({
    transaction_id: Uuid,
    escrow_id: Uuid,
    escrow_id_bytes32: z.string(),
    amount_wei: z.string(),
    currency: z.literal("USDC"),
    deadline: z.string(),
    seller_address: z.string(),
    state: z.literal("PENDING"),
    instructions: FundingInstructions,
  })
  .openapi("PendingTransaction");

/** The live service's name of transaction_id in this answer. */
const TransactionId = { id: Uuid.openapi({ description: "The same as transaction_id" }) };

export const createTransactionRoute = createIdempotentRoute({
  method: "post",
  path: "/",
  operationId: "createTransaction",
  tags: ["Transactions"],
  summary: "Create an escrow between two agents, without a listing",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    body: {
      content: { "application/json": { schema: CreateBody, example: MONEY_EXAMPLES.createTransaction.request } },
      required: true,
    },
  },
  responses: {
    201: {
      description: "Hosted buyer: funded. External buyer: PENDING with the funding instructions.",
      content: {
        "application/json": {
          schema: z.union([FundedTransaction.extend(TransactionId), PendingTransaction.extend(TransactionId)]),
          example: MONEY_EXAMPLES.createTransaction[201],
        },
      },
    },
    ...cappedMoveResponses("escrow", {
      action: "transaction",
      summary: 'Escrow "Weekly report" for Studio',
      request: {
        seller_agent_id: "3a9f6d2c-1b4e-4c8a-9e7d-5f2a1b0c9d8e",
        amount_wei: "25000000",
        description: "Weekly report",
        deadline_hours: 72,
      },
    }),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** POST /api/transactions: the buyer's key (and an optional Idempotency-Key). */
export function registerCreate(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(createTransactionRoute, async function createTransaction(c) {
    const body = c.req.valid("json");
    const created = await useCases.transactionFunding.create({
      caller: c.get("agent").row,
      buyerAgentId: body.buyer_agent_id,
      sellerAgentId: body.seller_agent_id,
      amountWei: body.amount_wei,
      currency: body.currency,
      description: body.description,
      deadlineHours: body.deadline_hours,
      origin: spendOrigin(c.get("session")),
    });
    if (created.state === "AWAITING_APPROVAL") return c.json(created, 202);
    return c.json({ id: created.transaction_id, ...created }, 201);
  });
}
