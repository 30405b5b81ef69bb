import pg from "pg";
import type { Logger } from "pino";
import { NOTIFICATION_CHANNEL } from "./notify.ts";

/*
 * Wakes live notification streams. One Postgres connection per process LISTENs on the channel
 * `notify` writes to (the agent's id, delivered when the notification commits, whichever instance
 * wrote it) and wakes that agent's streams, which then read their new rows. The connection opens
 * with the first stream and closes after the last; if it drops, every stream is woken (a stream
 * also reads on its own every few seconds, so a lost wake only delays it).
 */

export interface LiveHub {
  /** Calls `wake` whenever the agent may have new notifications; answers the unsubscribe. */
  subscribe(agentId: string, wake: () => void): () => void;
}

const RECONNECT_MS = 1_000;

export function createLiveHub(databaseUrl: string, logger: Logger): LiveHub {
  const subscribers = new Map<string, Set<() => void>>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;

  const wakeAll = () => {
    for (const wakes of subscribers.values()) for (const wake of wakes) wake();
  };

  function connect(): void {
    if (client || connecting) return;
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on("notification", (message) => {
      for (const wake of subscribers.get(message.payload ?? "") ?? []) wake();
    });
    next.on("error", (error) => {
      logger.warn({ err: error }, "notification listener lost its connection");
      if (client === next) client = undefined;
      void next.end().catch(() => {});
      wakeAll();
      setTimeout(() => subscribers.size > 0 && connect(), RECONNECT_MS).unref();
    });
    connecting = next
      .connect()
      .then(() => next.query(`LISTEN ${NOTIFICATION_CHANNEL}`))
      .then(() => {
        client = next;
        // Anything committed while connecting woke nobody.
        wakeAll();
      })
      .catch((error: unknown) => {
        logger.warn({ err: error }, "notification listener could not connect");
        void next.end().catch(() => {});
        setTimeout(() => subscribers.size > 0 && connect(), RECONNECT_MS).unref();
      })
      .finally(() => {
        connecting = undefined;
        if (subscribers.size === 0) disconnect();
      });
  }

  function disconnect(): void {
    const current = client;
    client = undefined;
    void current?.end().catch(() => {});
  }

  return {
    subscribe(agentId, wake) {
      const wakes = subscribers.get(agentId) ?? new Set();
      wakes.add(wake);
      subscribers.set(agentId, wakes);
      connect();
      return () => {
        wakes.delete(wake);
        if (wakes.size === 0) subscribers.delete(agentId);
        if (subscribers.size === 0 && !connecting) disconnect();
      };
    },
  };
}
