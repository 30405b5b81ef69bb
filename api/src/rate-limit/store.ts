import { sql } from "drizzle-orm";
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
    const interval = `${windowMs} milliseconds`;
    const { rows } = await this.db.execute<{ hits: number; reset_at: Date }>(sql`
      INSERT INTO app.rate_limit_windows AS w (key, window_start, hits) VALUES (${key}, now(), ${hits})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN w.window_start + ${interval}::interval <= now() THEN ${hits} ELSE w.hits + ${hits} END,
        window_start = CASE WHEN w.window_start + ${interval}::interval <= now() THEN now() ELSE w.window_start END
      RETURNING hits, window_start + ${interval}::interval AS reset_at`);
    const row = rows[0];
    if (!row) throw new Error("rate limit upsert returned no row");
    return { count: Number(row.hits), resetAt: new Date(row.reset_at).getTime() };
  }
}

/**
 * The Postgres store without a database write per request: each instance counts locally and adds
 * its hits to the shared row every `flushMs` (one statement per busy key), reading back every
 * instance's total. A key's first hit in a window goes to the database at once. Between flushes an
 * instance decides on the shared total it last saw plus its own new hits, so all instances
 * together may overshoot a limit by what the others sent within one flush interval.
 */
export class SharedRateLimitStore implements RateLimitStore {
  private readonly shared: PostgresRateLimitStore;
  private readonly flushMs: number;
  private readonly local = new Map<
    string,
    { windowMs: number; sharedCount: number; pending: number; resetAt: number }
  >();
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
      this.local.set(key, { windowMs, sharedCount: count, pending: 0, resetAt });
      return { count, resetAt };
    }
    entry.pending += 1;
    return { count: entry.sharedCount + entry.pending, resetAt: entry.resetAt };
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
      const pending = entry.pending;
      entry.pending = 0;
      try {
        const { count, resetAt } = await this.shared.add(key, entry.windowMs, pending);
        // The shared total now holds what was flushed; hits counted meanwhile stay pending.
        entry.sharedCount = count;
        entry.resetAt = resetAt;
      } catch {
        entry.pending += pending;
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
