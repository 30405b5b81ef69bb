import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, desc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { streamSSE } from "hono/streaming";
import { requireAgent } from "../auth/require-agent.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../db/cursor.ts";
import { notifications } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../domain/ids.ts";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/errors.ts";
import { createLiveHub } from "../notifications/live-hub.ts";
import { NOTIFICATION_KINDS } from "../notifications/notify.ts";
import { bearerSecurity, Cursor, errorResponses, Limit, QueryBoolean, Uuid } from "../schemas/common.ts";

/*
 * The caller's notifications, newest first (`unread=true` for the unread ones), marking them read
 * by id or all at once (every answer carries the unread count), and a live stream of new ones
 * (Server-Sent Events).
 */

/** A stream reads on its own this often, even without a wake, and sends a keep-alive comment. */
const STREAM_POLL_MS = 15_000;
/**
 * How far back a stream looks on each read. `created_at` is when the writing transaction began,
 * so a row can commit after a later-stamped one was already sent: reads overlap by this much and
 * skip what they sent.
 */
const STREAM_LOOKBACK_MS = 30_000;

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
  .union([z.object({ notification_ids: z.array(Uuid).min(1).max(100) }), z.object({ all: z.literal(true) })])
  .openapi("MarkNotificationsRead");

export function notificationRoutes(deps: Deps) {
  const { db } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("/api/notifications", requireAgent(db));
  app.use("/api/notifications/*", requireAgent(db));

  const hub = createLiveHub(deps.config.databaseUrl, deps.logger);

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
          notifications: page.map(({ notification }) => toNotification(notification)),
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

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/notifications/stream",
      tags: ["Notifications"],
      summary: "New notifications as they happen (Server-Sent Events)",
      description:
        "Opens with an event `ready` ({ unread_count }); then each new notification as an event named by its kind, with the notification as JSON data and its id as the event id. Reconnect with `Last-Event-ID` to receive what followed that notification. A comment line keeps the connection alive every 15 s.",
      security: bearerSecurity,
      request: {
        headers: z.object({
          "last-event-id": z.string().optional().openapi({ description: "Resume after this notification" }),
        }),
      },
      responses: {
        200: {
          description: "An event stream",
          content: { "text/event-stream": { schema: z.string() } },
        },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const me = c.get("agent").id;
      const resumeId = c.req.header("last-event-id");
      const [resumeAt] =
        resumeId && isUuid(resumeId)
          ? await db
              .select({ at: timestampPosition(notifications.createdAt) })
              .from(notifications)
              .where(and(eq(notifications.id, resumeId), eq(notifications.agentId, me)))
          : [];
      // Without a known Last-Event-ID the stream starts now: what the lookback finds is skipped.
      const [startAt] = resumeAt
        ? [resumeAt]
        : await db
            .execute<{ at: string }>(sql`SELECT ${timestampPosition(sql`now()`)} AS at`)
            .then((result) => result.rows);
      const start = {
        at: (startAt as { at: string }).at,
        id: resumeAt ? (resumeId as string) : "ffffffff-ffff-ffff-ffff-ffffffffffff",
      };
      const sent = new Map<string, number>();
      let floor = Date.parse(start.at);

      async function newRows() {
        const rows = await db
          .select({ notification: notifications, position: timestampPosition(notifications.createdAt) })
          .from(notifications)
          .where(
            and(
              eq(notifications.agentId, me),
              sql`(${notifications.createdAt}, ${notifications.id}) > (${start.at}::timestamptz, ${start.id}::uuid)`,
              sql`${notifications.createdAt} > ${new Date(floor - STREAM_LOOKBACK_MS).toISOString()}::timestamptz`,
            ),
          )
          .orderBy(notifications.createdAt, notifications.id)
          .limit(200);
        return rows.filter((row) => !sent.has(row.notification.id));
      }

      return streamSSE(c, async (stream) => {
        let aborted = false;
        let woken = false;
        let resolveWait: (() => void) | undefined;
        const wake = () => {
          woken = true;
          resolveWait?.();
        };
        stream.onAbort(() => {
          aborted = true;
          wake();
        });
        const unsubscribe = hub.subscribe(me, wake);
        try {
          if (!resumeAt) for (const row of await newRows()) sent.set(row.notification.id, Date.parse(row.position));
          await stream.writeSSE({ event: "ready", data: JSON.stringify({ unread_count: await unreadCount(me) }) });
          while (!aborted) {
            if (!woken) {
              await new Promise<void>((resolve) => {
                resolveWait = resolve;
                setTimeout(resolve, STREAM_POLL_MS).unref();
              });
            }
            const wasWoken = woken;
            woken = false;
            resolveWait = undefined;
            if (aborted) break;
            let rows: Awaited<ReturnType<typeof newRows>>;
            try {
              rows = await newRows();
            } catch (error) {
              // The database did not answer (down, or no connection free): the stream stays open
              // and reads again at the next wake-up or poll.
              c.get("logger").warn({ err: error }, "notification stream: read failed, will retry");
              continue;
            }
            for (const { notification: n, position } of rows) {
              await stream.writeSSE({ id: n.id, event: n.kind, data: JSON.stringify(toNotification(n)) });
              const at = Date.parse(position);
              sent.set(n.id, at);
              floor = Math.max(floor, at);
            }
            if (rows.length === 200) woken = true; // more are waiting
            if (rows.length === 0 && !wasWoken) await stream.write(": keep-alive\n\n");
            for (const [id, at] of sent) if (at < floor - 2 * STREAM_LOOKBACK_MS) sent.delete(id);
          }
        } finally {
          unsubscribe();
        }
      });
    },
  );

  return app;
}

function toNotification(n: typeof notifications.$inferSelect) {
  return {
    id: n.id,
    kind: n.kind as (typeof NOTIFICATION_KINDS)[number],
    payload: n.payload,
    created_at: n.createdAt.toISOString(),
    read_at: n.readAt?.toISOString() ?? null,
  };
}
