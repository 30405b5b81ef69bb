import { createHmac } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { repeatEvery } from "../background/repeat.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { isoMillisSql } from "../db/json-text.ts";
import { webhookDeliveries } from "../db/schema.ts";
import { webhookSecretOf } from "./webhook-secret.ts";
import { checkWebhookUrl } from "./webhook-url.ts";

/*
 * Sends due webhook deliveries: a POST of the notification as JSON, signed
 * `X-Signature: sha256=<hex HMAC-SHA256 of the exact body with the agent's webhook secret>`.
 * A 2xx answer delivers it; anything else (another status, a timeout, a refused address, a
 * redirect, which is never followed) waits retryBaseMs × 4^(attempt − 1), at most an hour, then
 * tries again, until maxAttempts. Claiming a delivery pushes its next attempt past the timeout
 * first, so two instances never send it at once, and a crash mid-send only delays it.
 */

/** The body a receiver gets. */
export interface WebhookBody {
  id: string;
  kind: string;
  agent_id: string;
  created_at: string;
  payload: Record<string, unknown>;
}

export function signWebhookBody(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Wait after `attempts` failed attempts. */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 4 ** Math.max(attempts - 1, 0), 3_600_000);
}

const REMOVED = "the agent removed its webhook_url";

interface ClaimedDelivery {
  id: string;
  /** The agent's webhook URL now (a retry goes where the agent points today); null if removed. */
  url: string | null;
  attempts: number;
  agent_id: string;
  secret: string | null;
  notification_id: string;
  kind: string;
  payload: Record<string, unknown>;
  created_at: string;
}

export function createWebhookSender(deps: { db: Database; config: Config; logger: Logger }) {
  const { db, config, logger } = deps;
  const { retryBaseMs, maxAttempts, timeoutMs, allowPrivateAddresses } = config.webhooks;

  /** Takes up to `limit` due deliveries, each counted as one more attempt. */
  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    const { rows } = await db.execute<ClaimedDelivery & Record<string, unknown>>(sql`
      WITH due AS (
        SELECT id FROM app.webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE app.webhook_deliveries d
      SET url = coalesce(a.webhook_url, d.url), attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${(timeoutMs * 2) / 1000})
      FROM due, app.notifications n, app.agents a
      WHERE d.id = due.id AND n.id = d.notification_id AND a.id = d.agent_id
      RETURNING d.id, a.webhook_url AS url, d.attempts, d.agent_id, a.webhook_secret_encrypted AS secret, n.id AS notification_id,
                n.kind, n.payload, ${isoMillisSql(sql.raw("n.created_at"))} AS created_at`);
    return rows;
  }

  async function send(delivery: ClaimedDelivery): Promise<{ status?: number; error?: string }> {
    if (!delivery.url) return { error: REMOVED };
    if (!delivery.secret) return { error: "the agent has no webhook secret" };
    const body = JSON.stringify({
      id: delivery.notification_id,
      kind: delivery.kind,
      agent_id: delivery.agent_id,
      created_at: delivery.created_at,
      payload: delivery.payload,
    } satisfies WebhookBody);
    try {
      const url = delivery.url;
      await checkWebhookUrl(url, allowPrivateAddresses);
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "agent-marketplace-webhooks/1",
          "x-signature": signWebhookBody(body, webhookSecretOf(delivery.secret, delivery.agent_id, config.masterKey)),
          "x-notification-id": delivery.notification_id,
          "x-delivery-attempt": String(delivery.attempts),
        },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      return response.ok ? { status: response.status } : { status: response.status, error: `HTTP ${response.status}` };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  async function record(delivery: ClaimedDelivery, outcome: { status?: number; error?: string }): Promise<void> {
    const delivered = outcome.error === undefined;
    const exhausted = !delivered && (delivery.attempts >= maxAttempts || outcome.error === REMOVED);
    await db
      .update(webhookDeliveries)
      .set({
        status: delivered ? "delivered" : exhausted ? "failed" : "pending",
        lastStatusCode: outcome.status ?? null,
        lastError: outcome.error?.slice(0, 500) ?? null,
        ...(delivered && { deliveredAt: new Date() }),
        ...(!delivered &&
          !exhausted && { nextAttemptAt: new Date(Date.now() + retryDelayMs(delivery.attempts, retryBaseMs)) }),
      })
      .where(eq(webhookDeliveries.id, delivery.id));
    if (!delivered) {
      logger.warn(
        { delivery_id: delivery.id, attempts: delivery.attempts, error: outcome.error, failed: exhausted },
        "webhook delivery failed",
      );
    }
  }

  /** Sends the deliveries due now (at most `limit`, concurrently); answers how many it tried. */
  async function tick(limit = 20): Promise<number> {
    const due = await claim(limit);
    await Promise.all(due.map(async (delivery) => record(delivery, await send(delivery))));
    return due.length;
  }

  function start(intervalMs: number): () => Promise<void> {
    return repeatEvery(
      intervalMs,
      async () => {
        while ((await tick()) > 0);
      },
      (error) => logger.error({ err: error }, "webhook sender failed"),
    );
  }

  return { tick, start };
}
