import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, QueryBoolean, queryOf } from "../../schemas/common.ts";
import { Notification, notificationAnswer } from "../../schemas/notifications.ts";
import type { RouteDeps } from "../route-deps.ts";

export const listRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "listNotifications",
  tags: ["Notifications"],
  summary: "The caller's notifications, newest first",
  security: bearerSecurity,
  middleware: guard.agent,
  request: {
    query: queryOf({
      unread: QueryBoolean.optional().openapi({ description: "true: only unread ones" }),
      limit: Limit,
      cursor: Cursor,
    }),
  },
  responses: {
    200: {
      description: "A page of notifications and the unread count",
      content: {
        "application/json": {
          schema: z.object({
            notifications: z.array(Notification),
            unread_count: z.number().int(),
            next_cursor: z.string().nullable(),
          }),
        },
      },
    },
    ...errorResponses(400, 401),
  },
});

/** GET /api/notifications: the caller's key. */
export function registerList(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(listRoute, async function listNotifications(c) {
    const { unread, limit, cursor } = c.req.valid("query");
    const page = await useCases.notifications.list({ agentId: c.get("agent").id, unread, limit, cursor });
    return c.json(
      {
        notifications: page.notifications.map(notificationAnswer),
        unread_count: page.unreadCount,
        next_cursor: page.nextCursor,
      },
      200,
    );
  });
}
