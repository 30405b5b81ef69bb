import { z } from "@hono/zod-openapi";
import type { Notification as NotificationOf } from "../domain/notifications/notifications.ts";
import { notificationWords } from "../notifications/notification-words.ts";
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
    // The names the live service's clients read.
    type: z.enum(NOTIFICATION_KINDS).openapi({ description: "The same as kind" }),
    title: z.string().openapi({ description: "A short title of the kind", example: "Work delivered" }),
    message: z.string().openapi({ description: "One sentence for a person, from the payload" }),
    read: z.boolean().openapi({ description: "Whether it was marked read (read_at is set)" }),
  })
  .openapi("Notification");

export function notificationAnswer(n: NotificationOf): z.infer<typeof Notification> {
  const kind = n.kind as (typeof NOTIFICATION_KINDS)[number];
  return {
    id: n.id,
    kind,
    payload: n.payload,
    created_at: n.createdAt.toISOString(),
    read_at: n.readAt?.toISOString() ?? null,
    type: kind,
    ...notificationWords(kind, n.payload),
    read: n.readAt !== null && n.readAt !== undefined,
  };
}
