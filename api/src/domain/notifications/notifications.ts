import { and, desc, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { notificationStreams, notifications } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { createLiveHub } from "../../notifications/live-hub.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { isUuid } from "../shared/ids.ts";

/*
 * An agent's notifications: a page of them (all or the unread ones) with the unread count,
 * marking them read, and what a live stream reads: where it starts, what followed, and wake-ups
 * when new ones commit (the LISTEN hub, notifications/live-hub.ts).
 */

export type Notification = typeof notifications.$inferSelect;

/** A notification with its keyset position (`created_at` to the microsecond, as text). */
export interface PositionedNotification {
  notification: Notification;
  position: string;
}

export interface NotificationPage {
  notifications: Notification[];
  unreadCount: number;
  nextCursor: string | null;
}

/** Where a stream reads from: strictly after (at, id). */
export interface StreamStart {
  at: string;
  id: string;
  /** Whether it resumes after a known Last-Event-ID (else it starts now). */
  resumed: boolean;
}

/** Sorts after any notification id stamped at the same instant: "from now on". */
const AFTER_EVERY_ID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/** The live notification streams an agent may hold at once; one more is refused (429). */
export const MAX_STREAMS = 5;
/** A stream says it is alive at every read (every 15 s at least); one silent this long is gone. */
const STREAM_STALE_MS = 60_000;

export function notificationUseCases(deps: Pick<Deps, "db" | "config" | "logger">) {
  const { db } = deps;
  const hub = createLiveHub(deps.config.databaseUrl, deps.logger);

  async function unreadCount(agentId: string): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(notifications)
      .where(and(eq(notifications.agentId, agentId), isNull(notifications.readAt)));
    return row?.n ?? 0;
  }

  /** A page of the agent's notifications, newest first, and its unread count. */
  async function list(input: {
    agentId: string;
    unread?: boolean;
    limit: number;
    cursor?: string;
  }): Promise<NotificationPage> {
    const { agentId, unread, limit, cursor } = input;
    const conditions: SQL[] = [eq(notifications.agentId, agentId)];
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
      unreadCount(agentId),
    ]);
    const { page, nextCursor } = keysetPage(rows, limit, (row) => ({ at: row.position, id: row.notification.id }));
    return { notifications: page.map((row) => row.notification), unreadCount: count, nextCursor };
  }

  /**
   * Marks the agent's unread notifications read: those of `ids`, or all. Only the agent's own ids
   * are touched; others' ids change nothing.
   */
  async function markRead(agentId: string, which: { ids: string[] } | "all") {
    const marked = await db
      .update(notifications)
      .set({ readAt: new Date() })
      .where(
        and(
          eq(notifications.agentId, agentId),
          isNull(notifications.readAt),
          which === "all" ? undefined : inArray(notifications.id, which.ids),
        ),
      )
      .returning({ id: notifications.id });
    return { marked: marked.length, unreadCount: await unreadCount(agentId) };
  }

  /**
   * Where a stream starts: after the agent's own notification `lastEventId` if it names one, else
   * now (the database's clock, the one `created_at` is stamped with).
   */
  async function streamStart(agentId: string, lastEventId: string | undefined): Promise<StreamStart> {
    const [resumeAt] =
      lastEventId && isUuid(lastEventId)
        ? await db
            .select({ at: timestampPosition(notifications.createdAt) })
            .from(notifications)
            .where(and(eq(notifications.id, lastEventId), eq(notifications.agentId, agentId)))
        : [];
    if (resumeAt) return { at: resumeAt.at, id: lastEventId as string, resumed: true };
    const { rows } = await db.execute<{ at: string }>(sql`SELECT ${timestampPosition(sql`now()`)} AS at`);
    return { at: (rows[0] as { at: string }).at, id: AFTER_EVERY_ID, resumed: false };
  }

  /**
   * The agent's notifications after `start` and created after `since`, oldest first, at most
   * `limit` of them.
   */
  function notificationsAfter(input: {
    agentId: string;
    start: StreamStart;
    since: Date;
    limit: number;
  }): Promise<PositionedNotification[]> {
    const { agentId, start, since, limit } = input;
    return db
      .select({ notification: notifications, position: timestampPosition(notifications.createdAt) })
      .from(notifications)
      .where(
        and(
          eq(notifications.agentId, agentId),
          sql`(${notifications.createdAt}, ${notifications.id}) > (${start.at}::timestamptz, ${start.id}::uuid)`,
          sql`${notifications.createdAt} > ${since.toISOString()}::timestamptz`,
        ),
      )
      .orderBy(notifications.createdAt, notifications.id)
      .limit(limit);
  }

  /**
   * Opens a stream of the agent's, unless it holds MAX_STREAMS live ones already (in any process):
   * answers the stream's id, or undefined. Streams not heard of within STREAM_STALE_MS are closed
   * first (a process that died leaves them).
   */
  async function openStream(agentId: string): Promise<string | undefined> {
    return db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`notification_streams:${agentId}`}, 0))`);
      await tx
        .delete(notificationStreams)
        .where(
          and(
            eq(notificationStreams.agentId, agentId),
            sql`${notificationStreams.seenAt} < now() - ${`${STREAM_STALE_MS} milliseconds`}::interval`,
          ),
        );
      const [open] = await tx
        .select({ count: sql<number>`count(*)::integer` })
        .from(notificationStreams)
        .where(eq(notificationStreams.agentId, agentId));
      if ((open?.count ?? 0) >= MAX_STREAMS) return undefined;
      const [opened] = await tx
        .insert(notificationStreams)
        .values({ agentId })
        .returning({ id: notificationStreams.id });
      return opened?.id;
    });
  }

  return {
    list,
    markRead,
    unreadCount,
    streamStart,
    openStream,
    /** Says the stream `id` is still open. */
    keepStream: async (id: string) => {
      await db.update(notificationStreams).set({ seenAt: sql`now()` }).where(eq(notificationStreams.id, id));
    },
    /** Closes the stream `id`. */
    closeStream: async (id: string) => {
      await db.delete(notificationStreams).where(eq(notificationStreams.id, id));
    },
    notificationsAfter,
    /** Calls `wake` whenever the agent may have new notifications; answers the unsubscribe. */
    subscribe: (agentId: string, wake: () => void) => hub.subscribe(agentId, wake),
  };
}
