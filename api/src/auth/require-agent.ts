import { and, eq, isNull } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { agents, apiKeys } from "../db/schema.ts";
import type { AppEnv } from "../http/env.ts";
import { unauthorized } from "../http/errors.ts";
import { apiKeyFromHeader, hashApiKey } from "./api-keys.ts";

/** 401 unless the request carries the live API key of an active agent; sets `c.var.agent`. */
export function requireAgent(db: Database): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = apiKeyFromHeader(c.req.header("authorization"));
    if (!key) throw unauthorized();
    const [found] = await db
      .select({ agentId: apiKeys.agentId, keyId: apiKeys.id })
      .from(apiKeys)
      .innerJoin(agents, eq(agents.id, apiKeys.agentId))
      .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt), eq(agents.isActive, true)))
      .limit(1);
    if (!found) throw unauthorized();
    c.set("agent", { id: found.agentId, keyId: found.keyId });
    c.set("logger", c.get("logger").child({ agent_id: found.agentId }));
    await next();
  };
}
