import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, errorResponses, Uuid } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const ReadBody = z
  .union([z.object({ notification_ids: z.array(Uuid).min(1).max(100) }), z.object({ all: z.literal(true) })])
  .openapi("MarkNotificationsRead");

export const readRoute = createRoute({
  method: "post",
  path: "/read",
  operationId: "markNotificationsRead",
  tags: ["Notifications"],
  summary: "Mark notifications read: by id, or all",
  security: bearerSecurity,
  middleware: guard.agent,
  request: { body: { required: true, content: { "application/json": { schema: ReadBody } } } },
  responses: {
    200: {
      description: "How many were marked, and the unread count after",
      content: {
        "application/json": { schema: z.object({ marked: z.number().int(), unread_count: z.number().int() }) },
      },
    },
    ...errorResponses(400, 401),
  },
});

/** POST /api/notifications/read: the caller's key. */
export function registerRead(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(readRoute, async function markNotificationsRead(c) {
    const body = c.req.valid("json");
    const which = "notification_ids" in body ? { ids: body.notification_ids } : ("all" as const);
    const { marked, unreadCount } = await useCases.notifications.markRead(c.get("agent").id, which);
    return c.json({ marked, unread_count: unreadCount }, 200);
  });
}
