/*
 * Verifying a webhook delivery. The marketplace signs each POST to an agent's webhook_url with
 * `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under the agent's
 * webhook_secret: the body as sent (verify the raw bytes, before any JSON parsing) and the time
 * are both signed, so a body changed on the way or a delivery replayed later is refused.
 * Web Crypto only (Node 20+, browsers, workers): the comparison is the platform's HMAC verify,
 * which takes the same time wherever the signatures differ.
 */

/** What the marketplace POSTs to a webhook: a notification (or a `webhook.test` event). */
export interface WebhookEvent {
  id: string;
  /** The notification's kind (`payment.funded`, `message.received`, `webhook.paused`, …) or `webhook.test`. */
  kind: string;
  agent_id: string;
  created_at: string;
  payload: Record<string, unknown>;
  /** A notification's: `kind` again (the name clients of the live service read). */
  type?: string;
  /** A notification's short title of its kind. */
  title?: string;
  /** A notification in one sentence, from its payload. */
  message?: string;
}

export interface VerifyWebhookOptions {
  /** How far the signed time may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, in unix seconds (for tests). Default: the clock. */
  now?: number;
}

export type WebhookVerificationReason =
  | "missing_header"
  | "malformed_header"
  | "stale_timestamp"
  | "future_timestamp"
  | "bad_signature"
  | "malformed_body";

/** A delivery that did not verify: answer it 400 (or 401) and do not act on it. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const encoder = new TextEncoder();

/**
 * Checks a webhook delivery's `X-Signature` header against the raw body and answers the event;
 * throws {@link WebhookVerificationError} for a missing or malformed header, a signed time more
 * than `toleranceSeconds` (300) from now either way, or a signature that does not match the body.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from "@agent-marketplace/sdk";
 *
 * // rawBody: the request's body exactly as received (a string or bytes).
 * const event = await verifyWebhook(process.env.WEBHOOK_SECRET!, request.headers["x-signature"], rawBody);
 * console.log(event.kind, event.payload);
 * ```
 */
export async function verifyWebhook(
  secret: string,
  header: string | readonly string[] | null | undefined,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const { timestamp, signatures } = parseSignatureHeader(header);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (timestamp < now - tolerance) {
    throw new WebhookVerificationError("stale_timestamp", `Signed ${now - timestamp} s ago, beyond ${tolerance} s`);
  }
  if (timestamp > now + tolerance) {
    throw new WebhookVerificationError("future_timestamp", `Signed ${timestamp - now} s ahead, beyond ${tolerance} s`);
  }
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  let matches = false;
  for (const signature of signatures) {
    if (await crypto.subtle.verify("HMAC", key, signature, signed)) matches = true;
  }
  if (!matches) throw new WebhookVerificationError("bad_signature", "The signature does not match the body");
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("malformed_body", "The signed body is not JSON");
  }
}

/** `t=<unix seconds>,v1=<64 hex>[,v1=…]`: the time and every v1 signature (other schemes are ignored). */
function parseSignatureHeader(header: string | readonly string[] | null | undefined): {
  timestamp: number;
  signatures: Uint8Array<ArrayBuffer>[];
} {
  if (header === null || header === undefined || header === "") {
    throw new WebhookVerificationError("missing_header", "No X-Signature header");
  }
  if (typeof header !== "string") {
    throw new WebhookVerificationError("malformed_header", "More than one X-Signature header");
  }
  let timestamp: number | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (separator < 0) throw new WebhookVerificationError("malformed_header", "X-Signature is not t=…,v1=…");
    if (name === "t") {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) {
        throw new WebhookVerificationError("malformed_header", "X-Signature has no single numeric t=");
      }
      timestamp = Number(value);
    } else if (name === "v1") {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) {
        throw new WebhookVerificationError("malformed_header", "An X-Signature v1= is not 64 hex digits");
      }
      signatures.push(hexBytes(value));
    }
  }
  if (timestamp === undefined) throw new WebhookVerificationError("malformed_header", "X-Signature has no t=");
  if (signatures.length === 0) throw new WebhookVerificationError("malformed_header", "X-Signature has no v1=");
  return { timestamp, signatures };
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
