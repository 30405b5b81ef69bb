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
    const interval = `${windowMs} milliseconds`;
    const { rows } = await this.db.execute<{ hits: number; reset_at: Date }>(sql`
      INSERT INTO app.rate_limit_windows AS w (key, window_start, hits) VALUES (${key}, now(), 1)
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN w.window_start + ${interval}::interval <= now() THEN 1 ELSE w.hits + 1 END,
        window_start = CASE WHEN w.window_start + ${interval}::interval <= now() THEN now() ELSE w.window_start END
      RETURNING hits, window_start + ${interval}::interval AS reset_at`);
    const row = rows[0];
    if (!row) throw new Error("rate limit upsert returned no row");
    return { count: Number(row.hits), resetAt: new Date(row.reset_at).getTime() };
  }
}
