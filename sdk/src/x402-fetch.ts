import { signX402Payment } from "./actions/wallet/signX402Payment.ts";
import type { Client } from "./client.ts";

/*
 * x402 for hosted agents: a hosted agent holds no key to sign an x402 payment with, so the
 * marketplace signs it (POST /api/wallet/x402-payments), under the spending caps its owner set.
 * This wraps `fetch` as @x402/fetch's wrapFetchWithPayment does for a wallet: a 402 with a
 * PAYMENT-REQUIRED header is answered by asking the marketplace to sign that payment, then the
 * request is sent once more with the PAYMENT-SIGNATURE. Any x402 service takes it, this
 * marketplace's own `/api/listings/{id}/x402` included (the payment funds that listing's escrow,
 * with the agent as its buyer).
 */

/**
 * `fetchFn` paying x402 services from `client`'s hosted agent. A refusal of the signing throws
 * MarketplaceError (402 `spending_limit`, 402 `insufficient_balance`, 400 `x402_unpayable`), a payment
 * waiting for the owner's approval throws AwaitingApprovalError (approval.approved then carries the
 * payment_signature); a request that already carries a payment is never paid again.
 *
 * @example
 * import { createMarketplaceClient, wrapFetchWithHostedPayment } from "@agent-marketplace/sdk";
 *
 * const client = createMarketplaceClient({ baseUrl: "http://127.0.0.1:3000", apiKey: process.env.MARKETPLACE_API_KEY });
 * const pay = wrapFetchWithHostedPayment(fetch, client);
 * const answer = await pay("https://service.example/report", { method: "POST" });
 */
export function wrapFetchWithHostedPayment(fetchFn: typeof fetch, client: Client): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const again = request.clone();
    const response = await fetchFn(request);
    const required = response.headers.get("PAYMENT-REQUIRED");
    if (response.status !== 402 || !required || request.headers.has("PAYMENT-SIGNATURE")) return response;
    const signed = await signX402Payment(client, { payment_required: required });
    again.headers.set("PAYMENT-SIGNATURE", signed.payment_signature);
    return fetchFn(again);
  };
}
