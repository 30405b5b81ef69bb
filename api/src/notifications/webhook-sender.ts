import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import { repeatEvery } from "../background/repeat.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { webhookDeliveries, webhookEndpoints } from "../db/schema.ts";
import { isoMillisSql } from "../domain/reads/json-text.ts";
import { notificationWords } from "./notification-words.ts";
import { notify } from "./notify.ts";
import { WEBHOOK_REMOVED } from "./webhook-endpoints.ts";
import { postWebhook, type WebhookAnswer } from "./webhook-post.ts";
import { webhookSecretOf } from "./webhook-secret.ts";
import { signWebhook } from "./webhook-signature.ts";
import type { WebhookLookup } from "./webhook-url.ts";

/*
 * Sends due webhook deliveries: a POST of the notification as JSON, signed
 * `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the agent's secret>`.
 *
 * Each agent's webhook is an endpoint (app.webhook_endpoints) with at most one delivery in flight,
 * across every API process: a sender claims an endpoint (its row locked, SKIP LOCKED) with its
 * oldest due delivery and leases it for twice the receiver's time and 5 s; the lease ends when the
 * outcome is recorded. A process keeps up to `concurrency` deliveries in flight, each to another
 * endpoint, and claims the next as soon as one ends, so a receiver that never answers holds one
 * slot for `timeoutMs` and delays nobody else.
 *
 * A 2xx answer delivers. Anything else (another status, a timeout, a refused address, a redirect,
 * which is never followed) counts twice:
 * - the delivery waits retryBaseMs × 4^(attempt − 1), at most an hour, until maxAttempts (failed);
 * - the endpoint waits as long after its n-th failure in a row (whichever delivery failed), and at
 *   `pauseAfterFailures` in a row it is paused: nothing more is sent, its deliveries wait pending
 *   (new ones too), and its agent is notified (`webhook.paused`). Setting the webhook URL again or a
 *   successful test delivery resumes it. A 2xx clears the count.
 * A crash mid-send only delays: the lease and the delivery's next attempt pass, and it is sent again.
 */

/** The body a receiver gets. */
export interface WebhookBody {
  id: string;
  kind: string;
  agent_id: string;
  created_at: string;
  payload: Record<string, unknown>;
  /** The names the live service's clients read: `kind` again, and the notification in words. */
  type?: string;
  title?: string;
  message?: string;
}

/** The body, as sent, and the headers of a webhook POST. */
export function webhookRequest(
  event: WebhookBody,
  secret: string,
  attempt: number,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": "agent-marketplace-webhooks/1",
      "x-signature": signWebhook(body, secret),
      "x-notification-id": event.id,
      "x-webhook-event": event.kind,
      "x-delivery-attempt": String(attempt),
    },
  };
}

/** Wait after `attempts` failed attempts (of a delivery, or in a row at an endpoint). */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 4 ** Math.max(attempts - 1, 0), 3_600_000);
}

const REMOVED = WEBHOOK_REMOVED;
const NO_SECRET = "the agent's webhook secret cannot be read";
const INTERRUPTED = "interrupted";

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

export function createWebhookSender(deps: { db: Database; config: Config; logger: Logger; lookup?: WebhookLookup }) {
  const { db, config, logger, lookup } = deps;
  const { retryBaseMs, maxAttempts, timeoutMs, allowPrivateAddresses, pauseAfterFailures, concurrency } =
    config.webhooks;
  const leaseSeconds = (timeoutMs * 2 + 5_000) / 1000;

  /**
   * Takes up to `limit` endpoints that are free, not paused and past their backoff, with their
   * oldest due delivery each (counted as one more attempt), and leases them.
   */
  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    const { rows } = await db.execute<ClaimedDelivery & Record<string, unknown>>(sql`
      WITH ready AS (
        SELECT e.agent_id FROM app.webhook_endpoints e
        WHERE e.paused_at IS NULL AND e.leased_until <= now() AND e.next_attempt_at <= now()
          AND EXISTS (
            SELECT 1 FROM app.webhook_deliveries d
            WHERE d.agent_id = e.agent_id AND d.status = 'pending' AND d.next_attempt_at <= now())
        ORDER BY e.leased_until
        LIMIT ${limit}
        FOR UPDATE OF e SKIP LOCKED
      ), picked AS (
        SELECT next.id, ready.agent_id FROM ready
        CROSS JOIN LATERAL (
          SELECT d.id FROM app.webhook_deliveries d
          WHERE d.agent_id = ready.agent_id AND d.status = 'pending' AND d.next_attempt_at <= now()
          ORDER BY d.next_attempt_at, d.id
          LIMIT 1
        ) next
      ), leased AS (
        UPDATE app.webhook_endpoints e SET leased_until = now() + make_interval(secs => ${leaseSeconds})
        FROM picked WHERE e.agent_id = picked.agent_id
      )
      UPDATE app.webhook_deliveries d
      SET url = coalesce(a.webhook_url, d.url), attempts = d.attempts + 1,
          next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
      FROM picked, app.notifications n, app.agents a
      WHERE d.id = picked.id AND n.id = d.notification_id AND a.id = d.agent_id
      RETURNING d.id, a.webhook_url AS url, d.attempts, d.agent_id, a.webhook_secret_encrypted AS secret, n.id AS notification_id,
                n.kind, n.payload, ${isoMillisSql(sql.raw("n.created_at"))} AS created_at`);
    return rows;
  }

  async function send(delivery: ClaimedDelivery, signal?: AbortSignal): Promise<WebhookAnswer> {
    if (!delivery.url) return { delivered: false, error: REMOVED };
    let secret: string;
    try {
      secret = webhookSecretOf(delivery.secret ?? "", delivery.agent_id, config.masterKey);
    } catch {
      // None, or sealed under another master key: nothing can be signed, nothing is sent.
      return { delivered: false, error: NO_SECRET };
    }
    const { body, headers } = webhookRequest(
      {
        id: delivery.notification_id,
        kind: delivery.kind,
        agent_id: delivery.agent_id,
        created_at: delivery.created_at,
        payload: delivery.payload,
        type: delivery.kind,
        ...notificationWords(delivery.kind, delivery.payload),
      },
      secret,
      delivery.attempts,
    );
    return postWebhook({ url: delivery.url, body, headers, allowPrivateAddresses, timeoutMs, lookup, signal });
  }

  async function record(delivery: ClaimedDelivery, answer: WebhookAnswer): Promise<void> {
    await db.transaction(async (tx) => {
      if (answer.error === INTERRUPTED) {
        // Not an attempt (this process is stopping): due again at once, for any process.
        await tx
          .update(webhookDeliveries)
          .set({ attempts: sql`${webhookDeliveries.attempts} - 1`, nextAttemptAt: sql`now()` })
          .where(eq(webhookDeliveries.id, delivery.id));
        await tx
          .update(webhookEndpoints)
          .set({ leasedUntil: sql`now()` })
          .where(eq(webhookEndpoints.agentId, delivery.agent_id));
        return;
      }
      const { delivered } = answer;
      const exhausted = !delivered && (delivery.attempts >= maxAttempts || answer.error === REMOVED);
      await tx
        .update(webhookDeliveries)
        .set({
          status: delivered ? "delivered" : exhausted ? "failed" : "pending",
          lastStatusCode: answer.status ?? null,
          lastError: answer.error?.slice(0, 500) ?? null,
          ...(delivered && { deliveredAt: new Date() }),
          ...(!delivered &&
            !exhausted && { nextAttemptAt: new Date(Date.now() + retryDelayMs(delivery.attempts, retryBaseMs)) }),
        })
        .where(eq(webhookDeliveries.id, delivery.id));
      // Only an attempt at the receiver says something about it.
      const attempted = answer.error !== REMOVED && answer.error !== NO_SECRET;
      const { rows } = await tx.execute<{ failures: number; paused_at: string | null; paused_now: boolean }>(sql`
        UPDATE app.webhook_endpoints SET
          leased_until = now(),
          consecutive_failures = ${!attempted ? sql`consecutive_failures` : delivered ? sql`0` : sql`consecutive_failures + 1`},
          next_attempt_at = ${
            attempted && !delivered
              ? sql`now() + make_interval(secs => least(${retryBaseMs} * power(4, least(consecutive_failures, 20)), 3600000) / 1000.0)`
              : sql`now()`
          },
          paused_at = ${
            !attempted
              ? sql`paused_at`
              : delivered
                ? sql`NULL`
                : sql`CASE WHEN paused_at IS NULL AND consecutive_failures + 1 >= ${pauseAfterFailures} THEN now() ELSE paused_at END`
          }
        WHERE agent_id = ${delivery.agent_id}
        RETURNING consecutive_failures AS failures, ${isoMillisSql(sql.raw("paused_at"))} AS paused_at,
                  coalesce(paused_at = now(), false) AS paused_now`);
      const endpoint = rows[0];
      if (endpoint?.paused_now && endpoint.paused_at) {
        await notify(tx, [
          {
            agentId: delivery.agent_id,
            kind: "webhook.paused",
            payload: {
              url: delivery.url,
              consecutive_failures: endpoint.failures,
              last_status_code: answer.status ?? null,
              last_error: answer.error ?? null,
              paused_at: endpoint.paused_at,
            },
            dedupeKey: `webhook.paused:${endpoint.paused_at}`,
          },
        ]);
      }
    });
    if (!answer.delivered && answer.error !== INTERRUPTED) {
      logger.warn(
        { delivery_id: delivery.id, agent_id: delivery.agent_id, attempts: delivery.attempts, error: answer.error },
        "webhook delivery failed",
      );
    }
  }

  /** Sends the deliveries due now (at most `limit` endpoints, one each) and waits for them: for tests. */
  async function tick(limit = concurrency): Promise<number> {
    const due = await claim(limit);
    await Promise.all(due.map(async (delivery) => record(delivery, await send(delivery))));
    return due.length;
  }

  /**
   * Runs the sender: every `intervalMs`, and whenever a delivery ends, claims what the free slots
   * allow and starts it. The returned stop interrupts deliveries in flight (they are due again at
   * once, not counted as attempts) and waits for them to be recorded.
   */
  function start(intervalMs: number): () => Promise<void> {
    const stopping = new AbortController();
    const inFlight = new Set<Promise<void>>();
    let filling: Promise<void> | undefined;
    let again = false;
    const onError = (error: unknown) => logger.error({ err: error }, "webhook sender failed");

    async function fill() {
      while (!stopping.signal.aborted && inFlight.size < concurrency) {
        const due = await claim(concurrency - inFlight.size);
        for (const delivery of due) {
          const running: Promise<void> = send(delivery, stopping.signal)
            .then((answer) => record(delivery, answer))
            .catch(onError)
            .finally(() => {
              inFlight.delete(running);
              void pump();
            });
          inFlight.add(running);
        }
        if (due.length === 0) return;
      }
    }

    /** One fill at a time; a call during one makes it run again after. */
    function pump(): Promise<void> {
      if (stopping.signal.aborted) return Promise.resolve();
      if (filling) {
        again = true;
        return filling;
      }
      filling = (async () => {
        do {
          again = false;
          await fill().catch(onError);
        } while (again && !stopping.signal.aborted);
      })().finally(() => {
        filling = undefined;
      });
      return filling;
    }

    const stopRepeating = repeatEvery(intervalMs, pump, onError);
    return async () => {
      stopping.abort();
      await stopRepeating();
      await filling;
      await Promise.all(inFlight);
    };
  }

  return { tick, start };
}
