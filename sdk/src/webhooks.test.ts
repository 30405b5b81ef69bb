import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "./index.ts";

/*
 * verifyWebhook against signatures made here as the marketplace makes them
 * (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">): a good delivery verifies, and each way
 * of getting it wrong is refused with its reason.
 */

const SECRET = `whsec_${"ab".repeat(32)}`;
const NOW = 1_800_000_000;
const BODY = JSON.stringify({
  id: "6f1c2e9a-3b4d-4c5e-8f70-123456789abc",
  kind: "message.received",
  agent_id: "0b9e2c1d-1111-4c5e-8f70-123456789abc",
  created_at: "2027-01-15T08:00:00.000Z",
  payload: { content: "héllo" },
});

function sign(body: string, t: number, secret = SECRET) {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "refused").toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe("verifyWebhook", () => {
  it("verifies a delivery signed now and answers its event, from a string or the raw bytes", async () => {
    const header = sign(BODY, NOW);
    const event = await verifyWebhook(SECRET, header, BODY, { now: NOW });
    expect(event).toEqual(JSON.parse(BODY));
    await expect(verifyWebhook(SECRET, header, new TextEncoder().encode(BODY), { now: NOW })).resolves.toEqual(event);
    // Within the tolerance either way; another scheme beside v1 is ignored.
    await expect(verifyWebhook(SECRET, sign(BODY, NOW - 300), BODY, { now: NOW })).resolves.toBeDefined();
    await expect(verifyWebhook(SECRET, sign(BODY, NOW + 300), BODY, { now: NOW })).resolves.toBeDefined();
    await expect(verifyWebhook(SECRET, `${header},v0=abc`, BODY, { now: NOW })).resolves.toBeDefined();
  });

  it("uses the clock and a 300 s tolerance by default", async () => {
    const now = Math.floor(Date.now() / 1000);
    await expect(verifyWebhook(SECRET, sign(BODY, now), BODY)).resolves.toBeDefined();
    expect(await refusal(verifyWebhook(SECRET, sign(BODY, now - 400), BODY))).toBe("stale_timestamp");
  });

  it("refuses an altered body, another secret, or a signature of the body alone", async () => {
    const header = sign(BODY, NOW);
    expect(await refusal(verifyWebhook(SECRET, header, BODY.replace("héllo", "hello"), { now: NOW }))).toBe(
      "bad_signature",
    );
    expect(await refusal(verifyWebhook(`${SECRET}x`, header, BODY, { now: NOW }))).toBe("bad_signature");
    // The time is part of what is signed: a signature moved to another t does not verify.
    const moved = header.replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(await refusal(verifyWebhook(SECRET, moved, BODY, { now: NOW }))).toBe("bad_signature");
    const bodyOnly = `t=${NOW},v1=${createHmac("sha256", SECRET).update(BODY).digest("hex")}`;
    expect(await refusal(verifyWebhook(SECRET, bodyOnly, BODY, { now: NOW }))).toBe("bad_signature");
    // The old scheme is not accepted.
    const old = `sha256=${createHmac("sha256", SECRET).update(BODY).digest("hex")}`;
    expect(await refusal(verifyWebhook(SECRET, old, BODY, { now: NOW }))).toBe("malformed_header");
  });

  it("refuses a stale or future time beyond the tolerance, however well signed", async () => {
    expect(await refusal(verifyWebhook(SECRET, sign(BODY, NOW - 301), BODY, { now: NOW }))).toBe("stale_timestamp");
    expect(await refusal(verifyWebhook(SECRET, sign(BODY, NOW + 301), BODY, { now: NOW }))).toBe("future_timestamp");
    const tight = { now: NOW, toleranceSeconds: 10 };
    expect(await refusal(verifyWebhook(SECRET, sign(BODY, NOW - 11), BODY, tight))).toBe("stale_timestamp");
    await expect(verifyWebhook(SECRET, sign(BODY, NOW - 10), BODY, tight)).resolves.toBeDefined();
  });

  it("refuses a missing or malformed header", async () => {
    const good = sign(BODY, NOW);
    const hex = good.split("v1=")[1] as string;
    for (const header of [undefined, null, ""]) {
      expect(await refusal(verifyWebhook(SECRET, header, BODY, { now: NOW })), String(header)).toBe("missing_header");
    }
    for (const header of [
      [good, good],
      "garbage",
      `v1=${hex}`,
      `t=${NOW}`,
      `t=${NOW},v1=${hex.slice(2)}`,
      `t=${NOW},v1=${hex.slice(0, -1)}z`,
      `t=soon,v1=${hex}`,
      `t=-${NOW},v1=${hex}`,
      `t=${NOW},t=${NOW},v1=${hex}`,
    ]) {
      expect(await refusal(verifyWebhook(SECRET, header, BODY, { now: NOW })), String(header)).toBe("malformed_header");
    }
  });
});
