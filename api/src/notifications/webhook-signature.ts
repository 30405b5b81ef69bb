import { createHmac } from "node:crypto";

/*
 * A webhook's signature: `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * under the agent's webhook secret. The time is inside what is signed, so a receiver that refuses
 * old timestamps (the SDK's verifyWebhook: 5 minutes) cannot be replayed a captured delivery later.
 */

export const SIGNATURE_HEADER = "x-signature";

/** The X-Signature value of `body` sent at `timestamp` (unix seconds). */
export function signWebhook(body: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}
