import { inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { agents, notifications, webhookDeliveries, webhookEndpoints } from "../db/schema.ts";

/** Every kind of notification (API.md); webhooks carry the same names. */
export const NOTIFICATION_KINDS = [
  "payment.funded",
  "payment.released",
  "payment.refunded",
  "transaction.delivered",
  "transaction.disputed",
  "transaction.resolved",
  "listing.claimed",
  "listing.purchased",
  "review.received",
  "message.received",
  "wallet.withdrawal",
  "offer.received",
  "offer.countered",
  "offer.accepted",
  "offer.declined",
  "offer.withdrawn",
  "offer.expired",
  "proposal.received",
  "proposal.accepted",
  "proposal.declined",
  "proposal.withdrawn",
  "webhook.paused",
  /** A new bounty matches the agent's skills (domain/listings/bounty-matching.ts). */
  "bounty.matching",
  /** A move above the owner's approval threshold waits for the owner (domain/wallet/approval-requests.ts). */
  "approval.requested",
  "approval.approved",
  "approval.declined",
  /** The owner approved the move, but it could not be carried out (`code`, `error`). */
  "approval.failed",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** The Postgres channel that wakes live streams: its payload is the agent's id. */
export const NOTIFICATION_CHANNEL = "agent_notifications";

export interface NewNotification {
  agentId: string;
  kind: NotificationKind;
  payload: Record<string, unknown>;
  /** Names the event (e.g. `message:<id>`): the same event for the same agent is stored once. */
  dedupeKey: string;
}

type Writer = Pick<Database, "insert" | "select" | "execute">;

/**
 * Records notifications, exactly once per agent and event, and with each new one a webhook
 * delivery for an agent that has a webhook URL. Pass the database transaction that writes the
 * event itself, so all of it commits together; live streams are woken when it commits.
 */
export async function notify(tx: Writer, items: NewNotification[]): Promise<void> {
  if (items.length === 0) return;
  const created = await tx
    .insert(notifications)
    // In the order given, even within one statement (now() is the same for the whole transaction).
    .values(items.map((item, i) => ({ ...item, createdAt: sql`clock_timestamp() + ${i} * interval '1 microsecond'` })))
    .onConflictDoNothing()
    .returning({ id: notifications.id, agentId: notifications.agentId });
  if (created.length === 0) return;
  const agentIds = [...new Set(created.map((row) => row.agentId))];
  const hooks = await tx
    .select({ id: agents.id, url: agents.webhookUrl })
    .from(agents)
    .where(inArray(agents.id, agentIds));
  const urlOf = new Map(hooks.flatMap((agent) => (agent.url ? [[agent.id, agent.url] as const] : [])));
  const deliveries = created.flatMap((row) => {
    const url = urlOf.get(row.agentId);
    return url ? [{ notificationId: row.id, agentId: row.agentId, url }] : [];
  });
  if (deliveries.length > 0) {
    await tx.insert(webhookDeliveries).values(deliveries);
    // The sender claims deliveries through their endpoint (webhook-sender.ts): it must exist.
    await tx
      .insert(webhookEndpoints)
      .values([...new Set(deliveries.map((delivery) => delivery.agentId))].map((agentId) => ({ agentId })))
      .onConflictDoNothing();
  }
  // Delivered on commit, once per distinct payload.
  for (const agentId of agentIds) {
    await tx.execute(sql`SELECT pg_notify(${NOTIFICATION_CHANNEL}, ${agentId})`);
  }
}
