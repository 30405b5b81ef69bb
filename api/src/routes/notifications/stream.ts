import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { MAX_STREAMS, type PositionedNotification } from "../../domain/notifications/notifications.ts";
import type { AppEnv } from "../../http/env.ts";
import { ApiError } from "../../http/errors.ts";
import { guard } from "../../http/guards.ts";
import { bearerSecurity, errorResponses } from "../../schemas/common.ts";
import { notificationAnswer } from "../../schemas/notifications.ts";
import type { RouteDeps } from "../route-deps.ts";

/** A stream reads on its own this often, even without a wake, and sends a keep-alive comment. */
const STREAM_POLL_MS = 15_000;
/**
 * How far back a stream looks on each read. `created_at` is when the writing transaction began,
 * so a row can commit after a later-stamped one was already sent: reads overlap by this much and
 * skip what they sent.
 */
const STREAM_LOOKBACK_MS = 30_000;
/** Most notifications one read sends; a full read means more are waiting. */
const STREAM_BATCH = 200;

export const streamRoute = createRoute({
  method: "get",
  path: "/stream",
  operationId: "streamNotifications",
  tags: ["Notifications"],
  summary: "New notifications as they happen (Server-Sent Events)",
  description:
    "Opens with an event `ready` ({ unread_count }); then each new notification as an event named by its kind, with the notification as JSON data and its id as the event id. Reconnect with `Last-Event-ID` to receive what followed that notification. A comment line keeps the connection alive every 15 s. An agent may hold 5 streams open at once: a sixth is refused with 429 `too_many_streams` until one closes.",
  security: bearerSecurity,
  middleware: guard.agent,
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
    ...errorResponses(401, 429),
  },
});

/**
 * GET /api/notifications/stream: the caller's key. Reads when the hub wakes it (a notification of
 * this agent committed) or every STREAM_POLL_MS; a failed read leaves the stream open.
 */
export function registerStream(app: OpenAPIHono<AppEnv>, { useCases, metrics }: RouteDeps) {
  const notifications = useCases.notifications;
  app.openapi(streamRoute, async function streamNotifications(c) {
    const me = c.get("agent").id;
    // Without a known Last-Event-ID the stream starts now: what the lookback finds is skipped.
    const start = await notifications.streamStart(me, c.req.header("last-event-id"));
    const streamId = await notifications.openStream(me);
    if (!streamId) {
      throw new ApiError(
        "too_many_streams",
        `At most ${MAX_STREAMS} notification streams may be open at once per agent: close one first`,
        { max_streams: MAX_STREAMS },
      );
    }
    const sent = new Map<string, number>();
    let floor = Date.parse(start.at);

    async function newRows() {
      const since = new Date(floor - STREAM_LOOKBACK_MS);
      const rows = await notifications.notificationsAfter({ agentId: me, start, since, limit: STREAM_BATCH });
      return rows.filter((row) => !sent.has(row.notification.id));
    }

    return streamSSE(c, async (stream) => {
      let aborted = false;
      let keptAt = Date.now();
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
      const unsubscribe = notifications.subscribe(me, wake);
      const closed = metrics.streamOpened();
      try {
        if (!start.resumed) for (const row of await newRows()) sent.set(row.notification.id, Date.parse(row.position));
        await stream.writeSSE({
          event: "ready",
          data: JSON.stringify({ unread_count: await notifications.unreadCount(me) }),
        });
        while (!aborted) {
          if (!woken) {
            await new Promise<void>((resolve) => {
              resolveWait = resolve;
              setTimeout(resolve, STREAM_POLL_MS).unref();
            });
          }
          if (Date.now() - keptAt >= STREAM_POLL_MS) {
            keptAt = Date.now();
            await notifications.keepStream(streamId).catch(() => undefined);
          }
          const wasWoken = woken;
          woken = false;
          resolveWait = undefined;
          if (aborted) break;
          let rows: PositionedNotification[];
          try {
            rows = await newRows();
          } catch (error) {
            // The database did not answer (down, or no connection free): the stream stays open
            // and reads again at the next wake-up or poll.
            c.get("logger").warn({ err: error }, "notification stream: read failed, will retry");
            continue;
          }
          for (const { notification: n, position } of rows) {
            await stream.writeSSE({ id: n.id, event: n.kind, data: JSON.stringify(notificationAnswer(n)) });
            const at = Date.parse(position);
            sent.set(n.id, at);
            floor = Math.max(floor, at);
          }
          if (rows.length === STREAM_BATCH) woken = true; // more are waiting
          if (rows.length === 0 && !wasWoken) await stream.write(": keep-alive\n\n");
          for (const [id, at] of sent) if (at < floor - 2 * STREAM_LOOKBACK_MS) sent.delete(id);
        }
      } finally {
        closed();
        unsubscribe();
        await notifications.closeStream(streamId).catch(() => undefined);
      }
    });
  });
}
