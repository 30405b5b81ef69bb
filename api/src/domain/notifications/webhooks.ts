import { randomUUID } from "node:crypto";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/client.ts";
import { agents, notifications, webhookDeliveries } from "../../db/schema.ts";
import {
  endWebhookBackoff,
  resumeWebhookEndpoint,
  type WebhookEndpointView,
  webhookEndpointOf,
} from "../../notifications/webhook-endpoints.ts";
import { postWebhook } from "../../notifications/webhook-post.ts";
import { newWebhookSecret, webhookSecretOf } from "../../notifications/webhook-secret.ts";
import { webhookRequest } from "../../notifications/webhook-sender.ts";
import type { ApiPaths } from "../shared/api-paths.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { ConflictError, forbidden, notFound } from "../shared/errors.ts";

/*
 * An agent's webhook: its delivery log (each notification sent to its webhook_url, attempts and
 * the receiver's last answer) with its endpoint's state (paused, failures in a row), a redelivery
 * of a failed one, a test delivery, and a new signing secret. The URL itself is set with the
 * profile (agents.ts, updateProfile).
 */

export const DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A delivery as the API answers it. */
export interface DeliveryView {
  id: string;
  notification_id: string;
  kind: string;
  url: string;
  status: DeliveryState;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** While pending. */
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

function toDelivery(d: typeof webhookDeliveries.$inferSelect, kind: string): DeliveryView {
  return {
    id: d.id,
    notification_id: d.notificationId,
    kind,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
  };
}

/** What a test delivery did. */
export interface TestDeliveryView {
  delivered: boolean;
  status: number | null;
  error?: string;
  /** Null when the target was refused: nothing was sent. */
  duration_ms: number | null;
}

export function webhookUseCases(
  deps: { db: Database; config: Pick<Config, "masterKey" | "webhooks"> },
  paths: Pick<ApiPaths, "ownProfile">,
) {
  const { db, config } = deps;
  return {
    /** A page of the agent's deliveries, newest first, and its endpoint; 400 for a cursor we did not make. */
    async deliveries(
      agentId: string,
      query: { status?: DeliveryState; limit: number; cursor?: string },
    ): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null; endpoint: WebhookEndpointView | null }> {
      const { status, limit, cursor } = query;
      const conditions: (SQL | undefined)[] = [
        eq(webhookDeliveries.agentId, agentId),
        status && eq(webhookDeliveries.status, status),
        olderThanCursor(webhookDeliveries.createdAt, webhookDeliveries.id, cursor),
      ];
      const rows = await db
        .select({
          delivery: webhookDeliveries,
          kind: notifications.kind,
          position: timestampPosition(webhookDeliveries.createdAt),
        })
        .from(webhookDeliveries)
        .innerJoin(notifications, eq(notifications.id, webhookDeliveries.notificationId))
        .where(and(...conditions))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit + 1);
      const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.delivery.id }));
      return {
        deliveries: page.map((row) => toDelivery(row.delivery, row.kind)),
        nextCursor,
        endpoint: await webhookEndpointOf(db, agentId),
      };
    },

    /**
     * Gives a failed delivery a fresh set of attempts, starting now (the endpoint's backoff ends;
     * a paused endpoint stays paused); pending or delivered ones are left as they are. 404 for no
     * such delivery, 403 for another agent's.
     */
    async redeliver(agentId: string, deliveryId: string): Promise<DeliveryView> {
      const [found] = await db
        .select({ delivery: webhookDeliveries, kind: notifications.kind })
        .from(webhookDeliveries)
        .innerJoin(notifications, eq(notifications.id, webhookDeliveries.notificationId))
        .where(eq(webhookDeliveries.id, deliveryId));
      if (!found) throw notFound("Webhook delivery");
      if (found.delivery.agentId !== agentId) throw forbidden("This delivery belongs to another agent");
      const [retried] = await db
        .update(webhookDeliveries)
        .set({ status: "pending", attempts: 0, nextAttemptAt: sql`now()`, lastError: null })
        .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, "failed")))
        .returning();
      if (retried) await endWebhookBackoff(db, agentId);
      return toDelivery(retried ?? found.delivery, found.kind);
    },

    /**
     * Sends a signed `webhook.test` event to the agent's webhook now, past the queue, the backoff
     * and a pause, and answers what the receiver did; a 2xx resumes a paused endpoint. Nothing is
     * logged or retried. 409 `webhook_not_set` without a webhook URL.
     */
    async testDelivery(agentId: string): Promise<TestDeliveryView> {
      const [agent] = await db
        .select({ url: agents.webhookUrl, sealed: agents.webhookSecretEncrypted })
        .from(agents)
        .where(eq(agents.id, agentId));
      if (!agent?.url || !agent.sealed) {
        throw new ConflictError(
          `No webhook_url is set: set one with PATCH ${paths.ownProfile}`,
          undefined,
          "webhook_not_set",
        );
      }
      const { body, headers } = webhookRequest(
        {
          id: randomUUID(),
          kind: "webhook.test",
          agent_id: agentId,
          created_at: new Date().toISOString(),
          payload: { message: "A test delivery: your webhook receives and verifies events." },
        },
        webhookSecretOf(agent.sealed, agentId, config.masterKey),
        1,
      );
      const { allowPrivateAddresses, timeoutMs } = config.webhooks;
      const answer = await postWebhook({ url: agent.url, body, headers, allowPrivateAddresses, timeoutMs });
      if (answer.delivered) await resumeWebhookEndpoint(db, agentId);
      return {
        delivered: answer.delivered,
        status: answer.status ?? null,
        ...(answer.error !== undefined && { error: answer.error }),
        duration_ms: answer.durationMs ?? null,
      };
    },

    /** A new signing secret for the agent's webhooks, answered once; the old one stops at once. */
    async rotateSecret(agentId: string): Promise<string> {
      const { secret, sealed } = newWebhookSecret(agentId, config.masterKey);
      await db
        .update(agents)
        .set({ webhookSecretEncrypted: sealed, updatedAt: new Date() })
        .where(eq(agents.id, agentId));
      return secret;
    },
  };
}
