import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { bearerSecurity, errorResponses, TxHash } from "../../schemas/common.ts";
import { MONEY_EXAMPLES } from "../../schemas/examples.ts";
import { InsufficientBalance } from "../../schemas/funding.ts";
import { FundedTransaction } from "../../schemas/transaction-funding.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * POST /api/transactions/{id}/confirm: an external buyer completes the funding with its tx_hash,
 * or with its EIP-3009 signature for the relayer to submit (gasless).
 */

const ConfirmBody = z
  .object({
    tx_hash: TxHash.optional(),
    authorization: z
      .object({
        signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, "must be a 65-byte signature in hex"),
        valid_after: z.string().regex(/^\d{1,20}$/),
        valid_before: z.string().regex(/^\d{1,20}$/),
      })
      .optional()
      .openapi({ description: "The buyer's EIP-3009 ReceiveWithAuthorization signature (gasless funding)" }),
  })
  .refine((body) => (body.tx_hash === undefined) !== (body.authorization === undefined), {
    message: "send exactly one of tx_hash and authorization",
  })
  .openapi("ConfirmFundingRequest");

export const confirmRoute = createIdempotentRoute({
  method: "post",
  path: "/{id}/confirm",
  operationId: "confirmFunding",
  tags: ["Transactions"],
  summary: "Confirm an external buyer's funding (tx_hash, or a signature for the relayer)",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    params: idParam("Transaction"),
    body: {
      content: { "application/json": { schema: ConfirmBody, example: MONEY_EXAMPLES.confirmFunding.request } },
      required: true,
    },
  },
  responses: {
    200: {
      description: "Funded and indexed",
      content: { "application/json": { schema: FundedTransaction, example: MONEY_EXAMPLES.confirmFunding[200] } },
    },
    402: {
      description: "The buyer's balance is short",
      content: { "application/json": { schema: InsufficientBalance } },
    },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

/** POST /api/transactions/{id}/confirm: the buyer's key. */
export function registerConfirm(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(confirmRoute, async function confirmFunding(c) {
    const { id } = c.req.valid("param");
    const { tx_hash, authorization } = c.req.valid("json");
    const funded = await useCases.transactionFunding.confirm({
      caller: c.get("agent").row,
      transactionId: id,
      txHash: tx_hash as Hex | undefined,
      authorization: authorization && {
        signature: authorization.signature as Hex,
        validAfter: BigInt(authorization.valid_after),
        validBefore: BigInt(authorization.valid_before),
      },
    });
    return c.json(funded, 200);
  });
}
