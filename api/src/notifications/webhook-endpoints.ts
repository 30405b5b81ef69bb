import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { webhookDeliveries, webhookEndpoints } from "../db/schema.ts";
import { isoMillisSql } from "../domain/reads/json-text.ts";

/*
 * The state of an agent's webhook endpoint that its agent changes (the sender changes the rest,
 * webhook-sender.ts): a new URL starts it afresh, a removed one ends what was waiting for it.
 */

type Writer = Pick<Database, "insert" | "update" | "execute">;

export const WEBHOOK_REMOVED = "the agent removed its webhook_url";

/**
 * The agent set its webhook URL (`url`) or removed it (null): its endpoint starts afresh (no
 * failures, not paused, free to send now); a removal fails every delivery still pending.
 */
export async function webhookUrlChanged(tx: Writer, agentId: string, url: string | null): Promise<void> {
  await resumeWebhookEndpoint(tx, agentId);
  if (url === null) {
    await tx
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: WEBHOOK_REMOVED, lastStatusCode: null })
      .where(and(eq(webhookDeliveries.agentId, agentId), eq(webhookDeliveries.status, "pending")));
  }
}

/** No failures, not paused, free to send now: what setting the URL or a test's 2xx does. */
export async function resumeWebhookEndpoint(tx: Pick<Database, "insert">, agentId: string): Promise<void> {
  await tx
    .insert(webhookEndpoints)
    .values({ agentId })
    .onConflictDoUpdate({
      target: webhookEndpoints.agentId,
      set: { consecutiveFailures: 0, pausedAt: null, nextAttemptAt: sql`now()` },
    });
}

/** A redelivery asks for it now: the endpoint's backoff ends (a paused endpoint stays paused). */
export async function endWebhookBackoff(tx: Pick<Database, "update">, agentId: string): Promise<void> {
  await tx.update(webhookEndpoints).set({ nextAttemptAt: sql`now()` }).where(eq(webhookEndpoints.agentId, agentId));
}

/** The endpoint's state as the agent reads it; null if it never had one. */
export interface WebhookEndpointView {
  /** When the circuit paused it; null while it is sending. */
  paused_at: string | null;
  consecutive_failures: number;
  /** Nothing is sent to it before (its backoff); null when that time has passed. */
  next_attempt_at: string | null;
}

export async function webhookEndpointOf(
  db: Pick<Database, "select">,
  agentId: string,
): Promise<WebhookEndpointView | null> {
  const [row] = await db
    .select({
      paused_at: sql<string | null>`${isoMillisSql(webhookEndpoints.pausedAt)}`,
      consecutive_failures: webhookEndpoints.consecutiveFailures,
      next_attempt_at: sql<
        string | null
      >`CASE WHEN ${webhookEndpoints.nextAttemptAt} > now() THEN ${isoMillisSql(webhookEndpoints.nextAttemptAt)} END`,
    })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.agentId, agentId));
  return row ?? null;
}
