import { randomUUID } from "node:crypto";
import type { Database } from "../db/client.ts";

/** A fixed-window counter. Pluggable: one API instance uses memory, several share Postgres. */
export interface RateLimitStore {
  /** Counts one hit of `key` in the current window of `windowMs`; returns the count so far and when the window ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; count: number }>();

  async hit(key: string, windowMs: number) {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now >= window.start + windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
      if (this.windows.size > 100_000) this.sweep(now, windowMs);
    }
    window.count += 1;
    return { count: window.count, resetAt: window.start + windowMs };
  }

  private sweep(now: number, windowMs: number) {
    for (const [key, window] of this.windows) if (now >= window.start + windowMs) this.windows.delete(key);
  }
}

/** Shared by every API instance on the same database (table app.rate_limit_windows). */
export class PostgresRateLimitStore implements RateLimitStore {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async hit(key: string, windowMs: number) {
    return this.add(key, windowMs, 1);
  }

  /** Adds `hits` at once (see SharedRateLimitStore). */
  async add(key: string, windowMs: number, hits: number) {
    const [answer] = await this.addMany(windowMs, [{ key, hits }]);
    if (!answer) throw new Error("rate limit upsert returned no row");
    return answer;
  }

  /**
   * Adds the hits of several keys of one window length in one statement, and answers each key's
   * total and the end of its window. A named statement: planned once per connection.
   */
  async addMany(windowMs: number, counts: ReadonlyArray<{ key: string; hits: number }>) {
    const { rows } = await this.db.$client.query<{ key: string; hits: number; reset_at: Date }>({
      name: "rate_limit_add_many",
      text: `INSERT INTO app.rate_limit_windows AS w (key, window_start, hits)
        SELECT key, now(), hits FROM unnest($1::text[], $3::integer[]) AS added(key, hits)
        ON CONFLICT (key) DO UPDATE SET
          hits = CASE WHEN w.window_start + $2::interval <= now() THEN excluded.hits ELSE w.hits + excluded.hits END,
          window_start = CASE WHEN w.window_start + $2::interval <= now() THEN now() ELSE w.window_start END
        RETURNING key, hits, window_start + $2::interval AS reset_at`,
      values: [counts.map((count) => count.key), `${windowMs} milliseconds`, counts.map((count) => count.hits)],
    });
    return rows.map((row) => ({ key: row.key, count: Number(row.hits), resetAt: new Date(row.reset_at).getTime() }));
  }

  /**
   * Says that the instance `id` is alive, forgets instances not heard of for long, and answers how
   * many others were heard of within `aliveMs`.
   */
  async announce(id: string, aliveMs: number): Promise<number> {
    const { rows } = await this.db.$client.query<{ others: number }>({
      name: "rate_limit_announce",
      text: `WITH seen AS (
          INSERT INTO app.rate_limit_instances (id, seen_at) VALUES ($1, now())
          ON CONFLICT (id) DO UPDATE SET seen_at = now()
        ), gone AS (
          DELETE FROM app.rate_limit_instances WHERE seen_at < now() - interval '1 day'
        )
        SELECT count(*)::integer AS others FROM app.rate_limit_instances
        WHERE id <> $1 AND seen_at > now() - $2::interval`,
      values: [id, `${aliveMs} milliseconds`],
    });
    return rows[0]?.others ?? 0;
  }

  /** Says that the instance `id` has stopped. */
  async leave(id: string): Promise<void> {
    await this.db.$client.query("DELETE FROM app.rate_limit_instances WHERE id = $1", [id]);
  }
}

/**
 * Another instance is alive when heard from within this many flush intervals (10 s at 100 ms).
 * Generous: an instance that stalls (a starved CPU, a long GC) while it serves must not be taken
 * for gone, or the others would count alone and pass its hits by. One that stops says so (close);
 * only a crashed one makes the others ask the database this long after.
 */
const ALIVE_FOR = 100;
/** This instance counts alone while it last heard of no other within this many flush intervals. */
const ALONE_HEARD_FOR = 10;

/** A key's count as one instance of the shared store knows it. */
interface SharedEntry {
  windowMs: number;
  /** Every instance's hits as the database last answered. */
  sharedCount: number;
  /** This instance's hits not yet added to the database. */
  pending: number;
  /** This instance's hits on their way to the database (in no answer yet). */
  sending: number;
  resetAt: number;
  /** When the database last answered for this key (Date.now()). */
  syncedAt: number;
  /** The exchange with the database under way, which concurrent hits wait for. */
  syncing?: Promise<void>;
}

/**
 * The Postgres store without a database write per request: each instance counts locally and adds
 * its hits to the shared rows every `flushMs` (one statement for all its keys), reading back every
 * instance's totals. A key's first hit in a window goes to the database at once. While other
 * instances are alive, so does any hit once the total this instance knows is `flushMs` old, with
 * the hits counted since (those arriving meanwhile wait for that answer): an instance never decides
 * on a total older than `flushMs`, however long it was idle while the others counted, and all
 * instances together may overshoot a limit only by what the others counted within the last
 * `flushMs`. An instance that hears of no other (each says it is alive every `flushMs`) counts every
 * hit itself: its own count is the total, and no request waits for the database.
 */
export class SharedRateLimitStore implements RateLimitStore {
  private readonly shared: PostgresRateLimitStore;
  private readonly flushMs: number;
  private readonly id = randomUUID();
  private readonly local = new Map<string, SharedEntry>();
  private readonly timer: NodeJS.Timeout;
  /** When this instance last heard that no other is alive (Date.now()); 0 once it hears of one. */
  private aloneHeardAt = 0;
  /**
   * Since when it has been alone: what it learnt of a key before may miss the hits of an instance
   * that has left, so a key asks once more after that.
   */
  private aloneSince = 0;

  constructor(shared: PostgresRateLimitStore, flushMs = 100) {
    this.shared = shared;
    this.flushMs = flushMs;
    this.timer = setInterval(() => void this.tick(), this.flushMs);
    this.timer.unref();
  }

  /** Says this instance is alive before it serves, so that the others ask again from then on. */
  async start(): Promise<void> {
    await this.announce();
  }

  async hit(key: string, windowMs: number) {
    const now = Date.now();
    const entry = this.local.get(key);
    if (!entry || now >= entry.resetAt) {
      const { count, resetAt } = await this.shared.hit(key, windowMs);
      this.local.set(key, { windowMs, sharedCount: count, pending: 0, sending: 0, resetAt, syncedAt: Date.now() });
      return { count, resetAt };
    }
    // What the other instances counted since this one last asked matters: ask first (if the
    // database does not answer, decide on what this instance knows).
    if (now - entry.syncedAt >= this.flushMs && !(this.alone(now) && entry.syncedAt > this.aloneSince)) {
      if (entry.syncing) {
        await entry.syncing.catch(() => {});
      } else {
        // This hit goes with the question, so the others count it before it is answered.
        entry.pending += 1;
        const synced = await this.sync(key, entry).then(
          () => true,
          () => false,
        );
        return { count: synced ? entry.sharedCount : this.known(entry), resetAt: entry.resetAt };
      }
    }
    entry.pending += 1;
    return { count: this.known(entry), resetAt: entry.resetAt };
  }

  /**
   * Whether no other instance is alive, as heard lately: a start announces itself before it serves,
   * and is heard within `flushMs`. Not heard for long (the database slow or away), the instance asks.
   */
  private alone(now: number): boolean {
    return now - this.aloneHeardAt < ALONE_HEARD_FOR * this.flushMs;
  }

  /** Says this instance is alive and hears whether others are. */
  async announce(): Promise<void> {
    const others = await this.shared.announce(this.id, ALIVE_FOR * this.flushMs);
    const now = Date.now();
    if (others > 0) {
      this.aloneHeardAt = 0;
      return;
    }
    if (!this.alone(now)) this.aloneSince = now;
    this.aloneHeardAt = now;
  }

  private async tick(): Promise<void> {
    await this.announce().catch(() => {
      this.aloneHeardAt = 0;
    });
    await this.flush().catch(() => {});
  }

  /** The count as this instance knows it: the shared total, and its own hits not in it yet. */
  private known(entry: SharedEntry): number {
    return entry.sharedCount + entry.sending + entry.pending;
  }

  /**
   * Sends every key's pending hits, in one statement per window length, and takes back the totals;
   * forgets keys whose window has ended.
   */
  async flush(): Promise<void> {
    const now = Date.now();
    const byWindow = new Map<number, Array<[string, SharedEntry]>>();
    for (const [key, entry] of this.local) {
      if (now >= entry.resetAt) {
        this.local.delete(key);
        continue;
      }
      // A key in an exchange already sends its pending hits with the next.
      if (entry.pending === 0 || entry.syncing) continue;
      const sameWindow = byWindow.get(entry.windowMs);
      if (sameWindow) sameWindow.push([key, entry]);
      else byWindow.set(entry.windowMs, [[key, entry]]);
    }
    await Promise.all([...byWindow].map(([windowMs, entries]) => this.exchange(windowMs, entries)));
  }

  /** Adds the entry's pending hits to the shared row and reads back its total (one exchange at a time). */
  private sync(key: string, entry: SharedEntry): Promise<void> {
    entry.syncing ??= this.exchange(entry.windowMs, [[key, entry]]);
    return entry.syncing;
  }

  /** Adds the entries' pending hits to their shared rows and reads back their totals. */
  private exchange(windowMs: number, entries: ReadonlyArray<[string, SharedEntry]>): Promise<void> {
    const sent = entries.map(([key, entry]) => {
      const hits = entry.pending;
      entry.pending = 0;
      entry.sending += hits;
      return { key, hits, entry };
    });
    const exchanged = (async () => {
      try {
        const answers = new Map((await this.shared.addMany(windowMs, sent)).map((answer) => [answer.key, answer]));
        for (const { key, entry } of sent) {
          const answer = answers.get(key);
          if (!answer) continue;
          // The shared total now holds what was sent; hits counted meanwhile stay pending. A later
          // window in the database (its clock decides) starts the count again.
          entry.sharedCount = answer.resetAt > entry.resetAt ? answer.count : Math.max(entry.sharedCount, answer.count);
          entry.resetAt = Math.max(entry.resetAt, answer.resetAt);
          entry.syncedAt = Date.now();
        }
      } catch (error) {
        for (const { entry, hits } of sent) entry.pending += hits;
        throw error;
      } finally {
        for (const { entry, hits } of sent) {
          entry.sending -= hits;
          entry.syncing = undefined;
        }
      }
    })();
    for (const { entry } of sent) entry.syncing = exchanged;
    return exchanged;
  }

  /** Stops counting here: sends its last hits and says it has left, so that the others may count alone. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
    await this.shared.leave(this.id).catch(() => {});
  }
}
