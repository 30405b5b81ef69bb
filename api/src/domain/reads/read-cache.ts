/**
 * A short-lived cache of public read answers (listing browse), with request coalescing: under
 * load, identical requests share one database read, and an answer lives at most `ttlMs`. Every
 * write that can change such an answer calls `invalidate()`, so this instance reads its own
 * writes at once; other instances see them within `ttlMs`. A TTL of 0 turns it off.
 */
export class ReadCache {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, { generation: number; expiresAt: number; value: Promise<unknown> }>();
  private generation = 0;

  constructor(ttlMs: number, maxEntries = 1_000) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  async get<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.ttlMs <= 0) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.generation === this.generation && hit.expiresAt > now) return hit.value as Promise<T>;
    const value = load();
    const entry = { generation: this.generation, expiresAt: now + this.ttlMs, value };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    // A failed read is not kept.
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  /** Forgets every answer: called after any write that may change one. */
  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
