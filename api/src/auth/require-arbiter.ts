import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { unauthorized } from "../domain/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { apiKeyFromHeader, hashApiKey } from "./api-keys.ts";

/**
 * 401 unless the request carries the arbiter's key (`config.arbiter`): the one credential a
 * ruling takes. No agent's key, session or other key gets past it, and without a configured
 * arbiter nothing does.
 */
export function requireArbiter(config: Pick<Config, "arbiter">): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = apiKeyFromHeader(c.req.header("authorization"));
    if (!config.arbiter || !key || hashApiKey(key) !== config.arbiter.apiKeyHash) {
      throw unauthorized("Only the arbiter's key resolves disputes");
    }
    await next();
  };
}
