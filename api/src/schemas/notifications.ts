import { z } from "@hono/zod-openapi";
import type { Notification as NotificationOf } from "../domain/notifications/notifications.ts";
import { NOTIFICATION_KINDS } from "../notifications/notify.ts";
import { Uuid } from "./common.ts";

/** A notification as the list and the live stream answer it. */
export const Notification = z
  .object({
    id: Uuid,
    kind: z.enum(NOTIFICATION_KINDS),
    payload: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    read_at: z.string().nullable(),
  })
  .openapi("Notification");

export function notificationAnswer(n: NotificationOf): z.infer<typeof Notification> {
  return {
    id: n.id,
    kind: n.kind as (typeof NOTIFICATION_KINDS)[number],
    payload: n.payload,
    created_at: n.createdAt.toISOString(),
    read_at: n.readAt?.toISOString() ?? null,
  };
}
