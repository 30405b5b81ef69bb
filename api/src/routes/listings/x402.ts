import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import {
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
} from "@x402/core/http";
import type { Context } from "hono";
import { X402PaymentError, X402PaymentRequiredError } from "../../domain/x402/x402-errors.ts";
import type { PresentedPayment } from "../../domain/x402/x402-purchases.ts";
import type { AppEnv } from "../../http/env.ts";
import { idParam } from "../../http/params.ts";
import { publicBaseUrl } from "../../http/request.ts";
import { errorResponses } from "../../schemas/common.ts";
import { X402PaymentRequired, X402Purchase } from "../../schemas/x402.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * GET or POST /api/listings/{id}/x402: a FIXED listing bought over x402 (HTTP 402), by any stock
 * x402 client (`@x402/fetch`, `@x402/axios`, the agent kits). Without a payment: 402 with the x402
 * v2 PAYMENT-REQUIRED header (@x402/core's encoding). With PAYMENT-SIGNATURE: the payment is
 * settled into the listing's escrow (domain/x402/x402-purchases.ts) and answered 201 with the
 * PAYMENT-RESPONSE header; presented again once settled, 200 with the same transaction.
 */

/** Where x402 clients put the payment: v2's header, or v1's (refused as another version). */
const PAYMENT_HEADERS = ["PAYMENT-SIGNATURE", "X-PAYMENT"];

const headerDoc = (description: string) => ({ description, schema: { type: "string" as const } });

function x402Route(method: "get" | "post") {
  return createRoute({
    method,
    path: "/{id}/x402",
    operationId: method === "get" ? "payListingX402" : "payListingX402Post",
    tags: ["Listings"],
    summary: "Buy a FIXED listing over x402: the payment funds its escrow",
    description: [
      "For stock x402 clients (`@x402/fetch`'s `wrapFetchWithPayment`, `@x402/axios`, agent kits); GET and POST answer alike.",
      "Without a payment: 402 with the `PAYMENT-REQUIRED` header (x402 v2, base64 JSON; the body is the same JSON): USDC on this chain, the listing's price, `payTo` the escrow contract, `extra` USDC's EIP-712 `name` and `version` and the listing.",
      "With `PAYMENT-SIGNATURE` (the client's EIP-3009 authorization): the relayer settles it into an escrow whose buyer is the signer, for this listing: 201 with the transaction (FUNDED), the `PAYMENT-RESPONSE` header and a `receipt_token`, the keyless buyer's credential on this transaction's routes only.",
      "The authorization's nonce is the idempotency key: the same payment presented again never pays twice. Presented while its settlement is under way (a retry after a timeout), it is answered when mined, with a receipt token of its own; once settled, 200 with the same transaction and no token (the authorization is public then). The stock client pays only assets it knows: allow this USDC with `setSpendControls({ allowedAssets: [{ network, asset }] })`.",
      "Refusals: 402 `payment_invalid` with `reason` and fresh requirements (nothing recorded); 400 for a BOUNTY; 404; 409 while the listing cannot be bought; 503 `settlement_pending` (present the same payment again).",
    ].join("\n\n"),
    security: [],
    request: { params: idParam("Listing") },
    responses: {
      200: {
        description: "This payment was settled before: the same transaction, nothing paid, no receipt token",
        headers: { "PAYMENT-RESPONSE": headerDoc("x402 v2 SettleResponse, base64 JSON") },
        content: { "application/json": { schema: X402Purchase } },
      },
      201: {
        description: "Settled into the listing's escrow: FUNDED, with a receipt token",
        headers: { "PAYMENT-RESPONSE": headerDoc("x402 v2 SettleResponse, base64 JSON") },
        content: { "application/json": { schema: X402Purchase } },
      },
      402: {
        description: "Payment required (no payment), or the payment was refused (`payment_invalid`, `reason`)",
        headers: { "PAYMENT-REQUIRED": headerDoc("x402 v2 PaymentRequired, base64 JSON") },
        content: { "application/json": { schema: X402PaymentRequired } },
      },
      ...errorResponses(400, 404, 409, 503),
    },
  });
}

export const x402GetRoute = x402Route("get");
export const x402PostRoute = x402Route("post");

/** The payment the request presents, if any: decoded JSON, or undecodable. */
function presentedPayment(c: Context<AppEnv>): PresentedPayment | undefined {
  const header = PAYMENT_HEADERS.map((name) => c.req.header(name)).find((value) => value !== undefined);
  if (header === undefined) return undefined;
  try {
    return { decoded: decodePaymentSignatureHeader(header.trim()) };
  } catch {
    return { undecodable: true };
  }
}

/** GET and POST /api/listings/{id}/x402: public (the payment is the credential). */
export function registerX402(app: OpenAPIHono<AppEnv>, { useCases, config }: RouteDeps) {
  const handler = async (c: Context<AppEnv>, id: string) => {
    // The resource as clients reach it (PUBLIC_BASE_URL behind a proxy), without the query string.
    const resourceUrl = `${publicBaseUrl(c, config.publicBaseUrl)}${c.req.path}`;
    c.header("Cache-Control", "no-store");
    const payment = presentedPayment(c);
    try {
      if (!payment) throw new X402PaymentRequiredError(await useCases.x402.requirements(id, resourceUrl));
      const outcome = await useCases.x402.pay(id, payment, resourceUrl);
      c.header("PAYMENT-RESPONSE", encodePaymentResponseHeader(outcome.settlement));
      return c.json(outcome.purchase, outcome.settled ? 201 : 200);
    } catch (error) {
      // A refused payment is answered (402, by app.onError) with what to pay instead, in the header too.
      if (error instanceof X402PaymentError || error instanceof X402PaymentRequiredError) {
        c.header("PAYMENT-REQUIRED", encodePaymentRequiredHeader(error.paymentRequired));
      }
      throw error;
    }
  };
  app.openapi(x402GetRoute, (c) => handler(c, c.req.valid("param").id));
  app.openapi(x402PostRoute, (c) => handler(c, c.req.valid("param").id));
}
