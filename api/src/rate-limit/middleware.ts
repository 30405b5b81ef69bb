import { eq, sql } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { apiKeyHashOf, sessionTokenOf } from "../auth/credential.ts";
import { hashSessionToken } from "../auth/user-sessions.ts";
import type { Database } from "../db/client.ts";
import { literalLimit } from "../db/compiled-statement.ts";
import { apiKeys } from "../db/schema.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError } from "../http/errors.ts";
import type { RateLimitStore } from "./store.ts";

const MINUTE_MS = 60_000;

export interface RateLimitRule {
  /** Names the limit in its key and its error ("requests", "registrations"). */
  name: string;
  limit: number;
  windowMs: number;
  /** Whose hits these are (an agent, an unknown key's hash, a client IP). */
  keyOf: (c: Context<AppEnv>) => string;
}

/**
 * Counts the request against `rule`; past the limit answers 429 with `Retry-After`. Every answer
 * carries the IETF draft `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers.
 */
export function rateLimit(store: RateLimitStore, rule: RateLimitRule): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { count, resetAt } = await store.hit(`${rule.name}:${rule.keyOf(c)}`, rule.windowMs);
    const resetSeconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    c.header("RateLimit-Limit", String(rule.limit));
    c.header("RateLimit-Remaining", String(Math.max(0, rule.limit - count)));
    c.header("RateLimit-Reset", String(resetSeconds));
    if (count > rule.limit) {
      c.header("Retry-After", String(resetSeconds));
      throw new ApiError(
        429,
        "rate_limited",
        `Too many ${rule.name}: at most ${rule.limit} per ${rule.windowMs / 1000} s`,
        {
          retry_after_seconds: resetSeconds,
        },
      );
    }
    await next();
  };
}

/**
 * The agent that holds (or held) the key of `keyHash`, revoked keys included: a key belongs to one
 * agent for good, so answers are kept (a bounded map, oldest out first). Unknown keys are not kept:
 * the key may be issued later.
 */
export function keyOwnerLookup(db: Database, capacity = 10_000): (keyHash: string) => Promise<string | undefined> {
  const owners = new Map<string, string>();
  const find = db
    .select({ agentId: apiKeys.agentId })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sql.placeholder("keyHash")))
    .limit(literalLimit(1))
    .prepare("rate_limit_key_owner");
  return async (keyHash) => {
    const known = owners.get(keyHash);
    if (known) return known;
    const [row] = await find.execute({ keyHash });
    if (!row) return undefined;
    if (owners.size >= capacity) owners.delete(owners.keys().next().value as string);
    owners.set(keyHash, row.agentId);
    return row.agentId;
  };
}

/**
 * The request budget: 100/min per agent for requests with an API key, counted by the agent that
 * holds the key, so rotating the key (with the old key or a wallet signature) does not start a
 * fresh budget; a key no agent holds is counted by its hash. An owner's session has a budget of
 * the same size of its own. Requests without a key share a wider budget per IP.
 */
export function requestBudget(
  store: RateLimitStore,
  options: {
    perKeyPerMinute: number;
    perIpPerMinute: number;
    ipOf: (c: Context<AppEnv>) => string;
    ownerOfKey: (keyHash: string) => Promise<string | undefined>;
  },
): MiddlewareHandler<AppEnv> {
  const perKey = rateLimit(store, {
    name: "requests",
    limit: options.perKeyPerMinute,
    windowMs: MINUTE_MS,
    keyOf: (c) => c.get("rateLimitSubject"),
  });
  const perIp = rateLimit(store, {
    name: "requests",
    limit: options.perIpPerMinute,
    windowMs: MINUTE_MS,
    keyOf: (c) => `ip:${options.ipOf(c)}`,
  });
  return async (c, next) => {
    const session = sessionTokenOf(c);
    if (session) {
      // An owner's session (Bearer or cookie) has its own budget, whichever agent it acts for.
      c.set("rateLimitSubject", `session:${hashSessionToken(session)}`);
      return perKey(c, next);
    }
    const keyHash = apiKeyHashOf(c);
    if (!keyHash) return perIp(c, next);
    const owner = await options.ownerOfKey(keyHash);
    c.set("rateLimitSubject", owner ? `agent:${owner}` : `key:${keyHash}`);
    return perKey(c, next);
  };
}
