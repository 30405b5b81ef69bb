import { randomUUID } from "node:crypto";
import type { Database } from "../db/client.ts";

/** What a budget answers for one request: admitted or not, what is left, and when the window ends. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests still admitted in this window (at least 0). */
  remaining: number;
  /** When the window ends (Date.now() milliseconds). */
  resetAt: number;
}

/**
 * A fixed-window budget: at most `limit` requests per key and window. Pluggable: one API instance
 * counts in memory, several share Postgres. A refused request spends nothing.
 */
export interface RateLimitStore {
  /** Admits one request of `key` if its window of `windowMs` has room under `limit`. */
  take(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { start: number; used: number }>();

  async take(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now >= window.start + windowMs) {
      window = { start: now, used: 0 };
      this.windows.set(key, window);
      if (this.windows.size > 100_000) this.sweep(now, windowMs);
    }
    const allowed = window.used < limit;
    if (allowed) window.used += 1;
    return { allowed, remaining: Math.max(0, limit - window.used), resetAt: window.start + windowMs };
  }

  private sweep(now: number, windowMs: number) {
    for (const [key, window] of this.windows) if (now >= window.start + windowMs) this.windows.delete(key);
  }
}

/** What the database granted one key: its share of a lease, and the window's state after it. */
export interface Lease {
  key: string;
  /** Requests granted to the asker (0 when the window is spent). */
  granted: number;
  /** Requests granted to every instance so far in this window. */
  used: number;
  /** The window's start as the database writes it, to the microsecond (names the window when giving back). */
  windowStart: string;
  resetAt: number;
}

/**
 * The windows every API instance shares (table app.rate_limit_windows): one row per key, whose
 * `hits` never exceed its `hit_limit`. Instances lease requests from a row in one atomic statement,
 * so together they never admit more than the limit, whatever the concurrency.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** Every request asks the database: exact, one statement each (SharedRateLimitStore asks far less). */
  async take(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const [lease] = await this.lease(windowMs, [{ key, limit, want: 1 }]);
    if (!lease) throw new Error("rate limit lease returned no row");
    return { allowed: lease.granted > 0, remaining: Math.max(0, limit - lease.used), resetAt: lease.resetAt };
  }

  /**
   * Grants each key up to `want` requests of its window of `windowMs` (a new window when the last
   * has ended), never beyond `limit` in all: one statement for all the keys, each row locked while
   * it is decided. A named statement: planned once per connection.
   */
  async lease(windowMs: number, wanted: ReadonlyArray<{ key: string; limit: number; want: number }>): Promise<Lease[]> {
    const { rows } = await this.db.$client.query<{
      key: string;
      granted: number;
      hits: number;
      window_start: string;
      reset_at: Date;
    }>({
      name: "rate_limit_lease",
      text: `INSERT INTO app.rate_limit_windows AS w (key, window_start, expires_at, hits, hit_limit, granted)
        SELECT key, now(), now() + $2::interval, least(want, lim), lim, least(want, lim)
        FROM unnest($1::text[], $3::integer[], $4::integer[]) AS wanted(key, want, lim)
        ON CONFLICT (key) DO UPDATE SET
          granted = CASE WHEN w.expires_at <= now() THEN excluded.granted
            ELSE greatest(0, least(excluded.granted, excluded.hit_limit - w.hits)) END,
          hits = CASE WHEN w.expires_at <= now() THEN excluded.hits
            ELSE w.hits + greatest(0, least(excluded.granted, excluded.hit_limit - w.hits)) END,
          window_start = CASE WHEN w.expires_at <= now() THEN now() ELSE w.window_start END,
          expires_at = CASE WHEN w.expires_at <= now() THEN now() + $2::interval ELSE w.expires_at END,
          hit_limit = excluded.hit_limit
        RETURNING key, granted, hits, window_start::text AS window_start, expires_at AS reset_at`,
      values: [
        wanted.map((asked) => asked.key),
        `${windowMs} milliseconds`,
        wanted.map((asked) => Math.max(0, Math.floor(asked.want))),
        wanted.map((asked) => Math.max(0, Math.floor(asked.limit))),
      ],
    });
    return rows.map((row) => ({
      key: row.key,
      granted: Number(row.granted),
      used: Number(row.hits),
      windowStart: row.window_start,
      resetAt: new Date(row.reset_at).getTime(),
    }));
  }

  /** Gives back requests leased and not used, to the window they were leased from (if it still runs). */
  async giveBack(returned: ReadonlyArray<{ key: string; windowStart: string; requests: number }>): Promise<void> {
    if (returned.length === 0) return;
    await this.db.$client.query({
      name: "rate_limit_give_back",
      text: `UPDATE app.rate_limit_windows AS w SET hits = greatest(0, w.hits - back.requests)
        FROM unnest($1::text[], $2::timestamptz[], $3::integer[]) AS back(key, window_start, requests)
        WHERE w.key = back.key AND w.window_start = back.window_start AND w.expires_at > now()`,
      values: [
        returned.map((back) => back.key),
        returned.map((back) => back.windowStart),
        returned.map((back) => back.requests),
      ],
    });
  }

  /** Forgets windows that have ended: a key that comes back starts a new one anyway. */
  async prune(): Promise<number> {
    const { rowCount } = await this.db.$client.query({
      name: "rate_limit_prune",
      text: "DELETE FROM app.rate_limit_windows WHERE expires_at <= now()",
    });
    return rowCount ?? 0;
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
 * for gone, or its leases would be divided as if it were not there. One that stops says so (close).
 */
const ALIVE_FOR = 100;
/**
 * Requests leased and unused this long are given back while other instances are alive: long
 * enough that a key in use keeps its lease (a key asked again every few seconds would otherwise
 * wait for a new lease each time), short against a minute's window.
 */
const IDLE_GIVE_BACK_MS = 5_000;
/** Ended windows are deleted from the shared table this often. */
const PRUNE_EVERY_MS = 60_000;

/** A key's window as one instance of the shared store holds it. */
interface LeasedWindow {
  limit: number;
  windowMs: number;
  /** Requests this instance was granted and has not admitted yet. */
  tokens: number;
  /** Requests every instance was granted in this window, as the database last answered. */
  used: number;
  windowStart?: string;
  resetAt: number;
  /** When the database last granted nothing (the window spent): asked again only after `flushMs`. */
  spentAt?: number;
  /** When this instance last admitted a request of the key. */
  lastTakenAt: number;
  /** The lease under way, which concurrent requests of the key wait for. */
  leasing?: Promise<void>;
}

/**
 * The Postgres store without a database round trip per request. Each instance leases part of a
 * key's budget (half of what is left, divided among the instances alive) in one atomic statement
 * and admits requests from its lease in memory; a burst waits for one lease, never races to the
 * row. All instances together never admit more than the limit: a lease is granted only from what
 * no instance holds. Requests leased and left idle (5 s) are given back while other instances are
 * alive, and on close; a spent window is asked again at most every `flushMs` (others may give some back).
 * Every `flushMs` each instance says it is alive; ended windows are pruned every minute.
 */
export class SharedRateLimitStore implements RateLimitStore {
  private readonly shared: PostgresRateLimitStore;
  private readonly flushMs: number;
  private readonly id = randomUUID();
  private readonly local = new Map<string, LeasedWindow>();
  private readonly timer: NodeJS.Timeout;
  /** Other instances heard of at the last announce. */
  private others = 0;
  private lastPruneAt = 0;

  private readonly idleGiveBackMs: number;

  constructor(shared: PostgresRateLimitStore, flushMs = 100, idleGiveBackMs = IDLE_GIVE_BACK_MS) {
    this.shared = shared;
    this.flushMs = flushMs;
    this.idleGiveBackMs = idleGiveBackMs;
    this.timer = setInterval(() => void this.tick(), this.flushMs);
    this.timer.unref();
  }

  /** Says this instance is alive before it serves, so that the others share their leases from then on. */
  async start(): Promise<void> {
    await this.announce();
  }

  async take(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    for (;;) {
      const now = Date.now();
      let window = this.local.get(key);
      if (window && now >= window.resetAt && !window.leasing) {
        this.local.delete(key);
        window = undefined;
      }
      if (window && window.tokens > 0) {
        window.tokens -= 1;
        window.lastTakenAt = now;
        return { allowed: true, remaining: this.remaining(window), resetAt: window.resetAt };
      }
      if (window?.leasing) {
        await window.leasing;
        continue;
      }
      if (window?.spentAt !== undefined && now - window.spentAt < this.flushMs) {
        return { allowed: false, remaining: 0, resetAt: window.resetAt };
      }
      if (!window) {
        window = { limit, windowMs, tokens: 0, used: 0, resetAt: now + windowMs, lastTakenAt: now };
        this.local.set(key, window);
      }
      window.limit = limit;
      const leased = this.lease(key, window);
      window.leasing = leased;
      const ok = await leased.then(
        () => true,
        () => false,
      );
      // The database did not answer: this request is decided on nothing better than being let in.
      if (!ok) return { allowed: true, remaining: this.remaining(window), resetAt: window.resetAt };
    }
  }

  /** What is left of the key's window for everyone, as this instance knows it. */
  private remaining(window: LeasedWindow): number {
    return Math.max(0, window.limit - window.used) + window.tokens;
  }

  /** Leases part of what is left of the key's budget (one exchange at a time per key). */
  private async lease(key: string, window: LeasedWindow): Promise<void> {
    const left = Math.max(0, window.limit - window.used);
    const want = Math.max(1, Math.floor(left / (2 * (this.others + 1))));
    try {
      const [answer] = await this.shared.lease(window.windowMs, [{ key, limit: window.limit, want }]);
      if (!answer) return;
      if (window.windowStart !== undefined && answer.windowStart !== window.windowStart) window.tokens = 0;
      window.windowStart = answer.windowStart;
      window.resetAt = answer.resetAt;
      window.used = answer.used;
      window.tokens += answer.granted;
      window.spentAt = answer.granted === 0 ? Date.now() : undefined;
    } finally {
      window.leasing = undefined;
    }
  }

  /** Says this instance is alive and hears how many others are. */
  async announce(): Promise<void> {
    this.others = await this.shared.announce(this.id, ALIVE_FOR * this.flushMs);
  }

  private async tick(): Promise<void> {
    await this.announce().catch(() => {});
    await this.flush().catch(() => {});
    if (Date.now() - this.lastPruneAt >= PRUNE_EVERY_MS) {
      this.lastPruneAt = Date.now();
      await this.shared.prune().catch(() => {});
    }
  }

  /**
   * Forgets windows that have ended and, while other instances are alive (or `all`), gives back
   * what is leased and idle, so that they may admit it.
   */
  async flush(all = false): Promise<void> {
    const now = Date.now();
    const returned: Array<{ key: string; windowStart: string; requests: number }> = [];
    for (const [key, window] of this.local) {
      if (window.leasing) continue;
      if (now >= window.resetAt) {
        this.local.delete(key);
        continue;
      }
      const idle = now - window.lastTakenAt >= this.idleGiveBackMs;
      if (window.tokens > 0 && window.windowStart && (all || (this.others > 0 && idle))) {
        returned.push({ key, windowStart: window.windowStart, requests: window.tokens });
        window.used = Math.max(0, window.used - window.tokens);
        window.tokens = 0;
      }
    }
    await this.shared.giveBack(returned);
  }

  /** Stops counting here: gives back its leases and says it has left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush(true).catch(() => {});
    await this.shared.leave(this.id).catch(() => {});
  }
}
