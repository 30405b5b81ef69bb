import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { requireAgent } from "../auth/require-agent.ts";
import { timestampPosition } from "../db/keyset.ts";
import { notifications } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { NOTIFICATION_KINDS } from "../domain/notifications.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { keysetPage, olderThanCursor } from "../http/keyset-page.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, QueryBoolean, Uuid } from "../schemas/common.ts";

/*
 * The caller's notifications, newest first (`unread=true` for the unread ones), and marking them
 * read by id or all at once. Every answer carries the unread count.
 */

const Notification = z
  .object({
    id: Uuid,
    kind: z.enum(NOTIFICATION_KINDS),
    payload: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    read_at: z.string().nullable(),
  })
  .openapi("Notification");

const ReadBody = z
  .union([
    z.strictObject({ notification_ids: z.array(Uuid).min(1).max(100) }),
    z.strictObject({ all: z.literal(true) }),
  ])
  .openapi("MarkNotificationsRead");

export function notificationRoutes(deps: Deps) {
  const { db } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("/api/notifications", requireAgent(db));
  app.use("/api/notifications/*", requireAgent(db));

  async function unreadCount(agentId: string): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(notifications)
      .where(and(eq(notifications.agentId, agentId), isNull(notifications.readAt)));
    return row?.n ?? 0;
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/notifications",
      tags: ["Notifications"],
      summary: "The caller's notifications, newest first",
      security: bearerSecurity,
      request: {
        query: z.strictObject({
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
    }),
    async (c) => {
      const { unread, limit, cursor } = c.req.valid("query");
      const me = c.get("agent").id;
      const conditions: SQL[] = [eq(notifications.agentId, me)];
      if (unread) conditions.push(isNull(notifications.readAt));
      const older = olderThanCursor(notifications.createdAt, notifications.id, cursor);
      if (older) conditions.push(older);
      const [rows, count] = await Promise.all([
        db
          .select({ notification: notifications, position: timestampPosition(notifications.createdAt) })
          .from(notifications)
          .where(and(...conditions))
          .orderBy(desc(notifications.createdAt), desc(notifications.id))
          .limit(limit + 1),
        unreadCount(me),
      ]);
      const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.notification.id }));
      return c.json(
        {
          notifications: page.map(({ notification: n }) => ({
            id: n.id,
            kind: n.kind as (typeof NOTIFICATION_KINDS)[number],
            payload: n.payload,
            created_at: n.createdAt.toISOString(),
            read_at: n.readAt?.toISOString() ?? null,
          })),
          unread_count: count,
          next_cursor: nextCursor,
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/notifications/read",
      tags: ["Notifications"],
      summary: "Mark notifications read: by id, or all",
      security: bearerSecurity,
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
    }),
    async (c) => {
      const body = c.req.valid("json");
      const me = c.get("agent").id;
      // Only the caller's own ids are touched; others' ids change nothing.
      const marked = await db
        .update(notifications)
        .set({ readAt: new Date() })
        .where(
          and(
            eq(notifications.agentId, me),
            isNull(notifications.readAt),
            "notification_ids" in body ? inArray(notifications.id, body.notification_ids) : undefined,
          ),
        )
        .returning({ id: notifications.id });
      return c.json({ marked: marked.length, unread_count: await unreadCount(me) }, 200);
    },
  );

  return app;
}
