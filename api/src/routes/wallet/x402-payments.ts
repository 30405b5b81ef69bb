import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { cappedMoveResponses } from "../../schemas/spending.ts";
import { SignedX402Payment, SignX402PaymentBody } from "../../schemas/wallet.ts";
import type { RouteDeps } from "../route-deps.ts";
import { spendOrigin } from "../spend-origin.ts";

export const signX402PaymentRoute = createIdempotentRoute({
  method: "post",
  path: "/x402-payments",
  operationId: "signX402Payment",
  tags: ["Wallet"],
  summary: "Sign an x402 payment from a hosted agent's wallet",
  description: [
    "A hosted agent that got a 402 from an x402 service (this marketplace's `/api/listings/{id}/x402` or any other) hands its PAYMENT-REQUIRED here; the service signs the payment with the agent's key, as the stock exact-scheme client would, and answers the PAYMENT-SIGNATURE header to send with the request again.",
    "Only USDC on this chain is paid (exact scheme, EIP-3009); otherwise 400 `x402_unpayable`. The payment is valid for the payee's maxTimeoutSeconds, at most 10 minutes, and holds that much of the balance until it is settled or expires.",
    "A money move like the others: the owner's spending caps hold (402 `spending_limit`; above the approval threshold 202 AWAITING_APPROVAL, and the approval signs it then: approval.approved carries the payment_signature), and the balance less the moves in flight must cover it (402 `insufficient_balance`). A signed payment counts in the day's spending whether or not its payee settles it.",
  ].join("\n\n"),
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    body: { content: { "application/json": { schema: SignX402PaymentBody } }, required: true },
  },
  responses: {
    201: {
      description: "Signed: send payment_signature as the PAYMENT-SIGNATURE header",
      content: { "application/json": { schema: SignedX402Payment } },
    },
    ...cappedMoveResponses("payment", {
      action: "x402",
      summary: "Pay https://example.com/report over x402",
      request: { payment_required: { x402Version: 2, resource: { url: "https://example.com/report" }, accepts: [] } },
    }),
    ...errorResponses(400, 401),
  },
});

/** POST /api/wallet/x402-payments: the caller's key (or its owner's session with X-Agent-Id). */
export function registerX402Payments(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(signX402PaymentRoute, async function signX402Payment(c) {
    const body = c.req.valid("json");
    const signed = await useCases.x402Signing.sign({
      agent: c.get("agent").row,
      paymentRequired: body.payment_required,
      origin: spendOrigin(c.get("session")),
    });
    if ("approval" in signed) return c.json(signed, 202);
    return c.json(signed, 201);
  });
}
