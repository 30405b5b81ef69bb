import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.ts";
import { ApiError } from "../http/errors.ts";
import type { RateLimitStore } from "./store.ts";

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
