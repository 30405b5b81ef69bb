import type { Database } from "../db/client.ts";
import { notifications } from "../db/schema.ts";

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
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface NewNotification {
  agentId: string;
  kind: NotificationKind;
  payload: Record<string, unknown>;
  /** Names the event (e.g. `message:<id>`): the same event for the same agent is stored once. */
  dedupeKey: string;
}

/**
 * Records notifications, exactly once per agent and event. Pass the database transaction that
 * writes the event itself, so both commit together.
 */
export async function notify(tx: Pick<Database, "insert">, items: NewNotification[]): Promise<void> {
  if (items.length === 0) return;
  await tx.insert(notifications).values(items).onConflictDoNothing();
}
