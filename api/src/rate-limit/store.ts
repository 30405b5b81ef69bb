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

  /** Adds `hits` at once (see SharedRateLimitStore). A named statement: planned once per connection. */
  async add(key: string, windowMs: number, hits: number) {
    const { rows } = await this.db.$client.query<{ hits: number; reset_at: Date }>({
      name: "rate_limit_add",
      text: `INSERT INTO app.rate_limit_windows AS w (key, window_start, hits) VALUES ($1, now(), $3)
        ON CONFLICT (key) DO UPDATE SET
          hits = CASE WHEN w.window_start + $2::interval <= now() THEN $3 ELSE w.hits + $3 END,
          window_start = CASE WHEN w.window_start + $2::interval <= now() THEN now() ELSE w.window_start END
        RETURNING hits, window_start + $2::interval AS reset_at`,
      values: [key, `${windowMs} milliseconds`, hits],
    });
    const row = rows[0];
    if (!row) throw new Error("rate limit upsert returned no row");
    return { count: Number(row.hits), resetAt: new Date(row.reset_at).getTime() };
  }
}

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
 * its hits to the shared row (one statement per busy key), reading back every instance's total.
 * A key's first hit in a window goes to the database at once; so does any hit once the total this
 * instance knows is `flushMs` old, with the hits counted since (those arriving meanwhile wait for
 * that answer), and every `flushMs` the hits counted meanwhile are added. An instance thus never decides on a total older
 * than `flushMs`, however long it was idle while the others counted: all instances together may
 * overshoot a limit only by what the others counted within the last `flushMs`.
 */
export class SharedRateLimitStore implements RateLimitStore {
  private readonly shared: PostgresRateLimitStore;
  private readonly flushMs: number;
  private readonly local = new Map<string, SharedEntry>();
  private readonly timer: NodeJS.Timeout;

  constructor(shared: PostgresRateLimitStore, flushMs = 100) {
    this.shared = shared;
    this.flushMs = flushMs;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
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
    if (now - entry.syncedAt >= this.flushMs) {
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

  /** The count as this instance knows it: the shared total, and its own hits not in it yet. */
  private known(entry: SharedEntry): number {
    return entry.sharedCount + entry.sending + entry.pending;
  }

  /** Sends every key's pending hits; forgets keys whose window has ended. */
  async flush(): Promise<void> {
    const now = Date.now();
    for (const [key, entry] of this.local) {
      if (now >= entry.resetAt) {
        this.local.delete(key);
        continue;
      }
      if (entry.pending === 0) continue;
      await this.sync(key, entry).catch(() => {});
    }
  }

  /** Adds the entry's pending hits to the shared row and reads back its total (one exchange at a time). */
  private sync(key: string, entry: SharedEntry): Promise<void> {
    entry.syncing ??= this.exchange(key, entry).finally(() => {
      entry.syncing = undefined;
    });
    return entry.syncing;
  }

  private async exchange(key: string, entry: SharedEntry): Promise<void> {
    const pending = entry.pending;
    entry.pending = 0;
    entry.sending += pending;
    try {
      const { count, resetAt } = await this.shared.add(key, entry.windowMs, pending);
      // The shared total now holds what was sent; hits counted meanwhile stay pending. A later
      // window in the database (its clock decides) starts the count again.
      entry.sharedCount = resetAt > entry.resetAt ? count : Math.max(entry.sharedCount, count);
      entry.resetAt = Math.max(entry.resetAt, resetAt);
      entry.syncedAt = Date.now();
    } catch (error) {
      entry.pending += pending;
      throw error;
    } finally {
      entry.sending -= pending;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
