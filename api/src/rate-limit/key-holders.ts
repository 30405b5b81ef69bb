import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { literalLimit } from "../db/compiled-statement.ts";
import { apiKeys } from "../db/schema.ts";

/** Whose budget a key spends: an agent's (the key live), the arbiter's, or nobody's (unknown or revoked). */
export type KeyHolder = { agentId: string } | "arbiter" | undefined;

/** How long a live key's holder is kept: a key revoked in another process counts this long at most. */
const LIVE_KEPT_MS = 5_000;
/** How long "no such key" is kept: a key is issued before anyone can send it, so this only bounds memory. */
const UNKNOWN_KEPT_MS = 10_000;

/**
 * Who holds an API key, for the request budget (rate-limit/middleware.ts): the agent whose live key
 * it is, or the arbiter (its key is configured, not stored). Answers are kept in a bounded map
 * (oldest out first): a revoked key for good, an unknown one for a few seconds, a live one for
 * LIVE_KEPT_MS. Keys revoked in this process are forgotten at once (`forgetAgent`, called by the
 * use cases that revoke), so here a revoked key is nobody's from the moment it is; another process
 * may count it against its agent for LIVE_KEPT_MS more. Every keyed route refuses it at once
 * anyway: its guard reads the key on every request.
 */
export class KeyHolders {
  private readonly kept = new Map<string, { holder: KeyHolder; until: number }>();
  /** Lookups under way: concurrent requests of one key wait for the same. */
  private readonly asking = new Map<string, Promise<KeyHolder>>();
  private readonly lookup;
  private readonly arbiterKeyHash: string | undefined;
  private readonly capacity: number;

  constructor(db: Database, arbiterKeyHash: string | undefined, capacity = 10_000) {
    this.arbiterKeyHash = arbiterKeyHash;
    this.capacity = capacity;
    this.lookup = db
      .select({ agentId: apiKeys.agentId, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, sql.placeholder("keyHash")))
      .limit(literalLimit(1))
      .prepare("rate_limit_key_holder");
  }

  async find(keyHash: string): Promise<KeyHolder> {
    if (this.arbiterKeyHash !== undefined && keyHash === this.arbiterKeyHash) return "arbiter";
    const known = this.kept.get(keyHash);
    if (known && Date.now() < known.until) return known.holder;
    if (known?.holder) {
      // A live key kept too long is asked again, but its request does not wait for the answer:
      // the key's requests after that one count as the database says.
      this.refresh(keyHash).catch(() => undefined);
      return known.holder;
    }
    return this.refresh(keyHash);
  }

  private refresh(keyHash: string): Promise<KeyHolder> {
    const asked = this.asking.get(keyHash);
    if (asked) return asked;
    const asking = (async () => {
      try {
        const [row] = await this.lookup.execute({ keyHash });
        const holder = row && !row.revokedAt ? { agentId: row.agentId } : undefined;
        const keptFor = !row ? UNKNOWN_KEPT_MS : row.revokedAt ? Number.POSITIVE_INFINITY : LIVE_KEPT_MS;
        this.kept.delete(keyHash);
        if (this.kept.size >= this.capacity) this.kept.delete(this.kept.keys().next().value as string);
        this.kept.set(keyHash, { holder, until: Date.now() + keptFor });
        return holder;
      } finally {
        this.asking.delete(keyHash);
      }
    })();
    this.asking.set(keyHash, asking);
    return asking;
  }

  /** Forgets the agent's live keys: some were just revoked. */
  forgetAgent(agentId: string): void {
    for (const [keyHash, { holder }] of this.kept) {
      if (typeof holder === "object" && holder.agentId === agentId) this.kept.delete(keyHash);
    }
  }
}
