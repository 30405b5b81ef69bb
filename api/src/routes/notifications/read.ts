import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { aliasRoute } from "../../http/alias.ts";
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

/** The live service's names: `mark_all_read: true` for `all: true`. */
const PatchBody = z.union([
  z.object({ notification_ids: z.array(Uuid).min(1).max(100) }),
  z.object({ mark_all_read: z.literal(true) }),
  z.object({ all: z.literal(true) }),
]);

export const patchNotificationsRoute = aliasRoute(readRoute, {
  method: "patch",
  path: "/",
  operationId: "patchNotifications",
  of: "POST /api/notifications/read",
  summary: "Mark notifications read: by id, or all (alias)",
  note: "`{ mark_all_read: true }` marks them all (as `all: true`), `{ notification_ids: [...] }` those.",
  request: { body: { required: true, content: { "application/json": { schema: PatchBody } } } },
});

/** POST /api/notifications/read, and PATCH /api/notifications (its alias): the caller's key. */
export function registerRead(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  const markRead = async (agentId: string, body: z.infer<typeof PatchBody>) => {
    const which = "notification_ids" in body ? { ids: body.notification_ids } : ("all" as const);
    const { marked, unreadCount } = await useCases.notifications.markRead(agentId, which);
    return { marked, unread_count: unreadCount };
  };
  app.openapi(readRoute, async function markNotificationsRead(c) {
    return c.json(await markRead(c.get("agent").id, c.req.valid("json")), 200);
  });
  app.openapi(patchNotificationsRoute, async function patchNotifications(c) {
    return c.json(await markRead(c.get("agent").id, c.req.valid("json")), 200);
  });
}
