import type { Context, MiddlewareHandler } from "hono";
import { apiKeyFromHeader, hashApiKey } from "../auth/api-keys.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError } from "../http/errors.ts";
import type { RateLimitStore } from "./store.ts";

const MINUTE_MS = 60_000;

export interface RateLimitRule {
  /** Names the limit in its key and its error ("requests", "registrations"). */
  name: string;
  limit: number;
  windowMs: number;
  /** Whose hits these are (an API key id, a client IP). */
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
 * The request budget: 100/min per API key (counted by the key's hash, so it holds for valid and
 * invalid keys alike and needs no database read), and a wider one per IP for requests without a key.
 */
export function requestBudget(
  store: RateLimitStore,
  options: { perKeyPerMinute: number; perIpPerMinute: number; ipOf: (c: Context<AppEnv>) => string },
): MiddlewareHandler<AppEnv> {
  const perKey = rateLimit(store, {
    name: "requests",
    limit: options.perKeyPerMinute,
    windowMs: MINUTE_MS,
    keyOf: (c) => `key:${hashApiKey(apiKeyFromHeader(c.req.header("authorization")) ?? "")}`,
  });
  const perIp = rateLimit(store, {
    name: "requests",
    limit: options.perIpPerMinute,
    windowMs: MINUTE_MS,
    keyOf: (c) => `ip:${options.ipOf(c)}`,
  });
  return (c, next) => (apiKeyFromHeader(c.req.header("authorization")) ? perKey(c, next) : perIp(c, next));
}
