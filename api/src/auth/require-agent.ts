import { and, eq, isNull, sql } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { agents, apiKeys } from "../db/schema.ts";
import type { AppEnv } from "../http/env.ts";
import { unauthorized } from "../http/errors.ts";
import { apiKeyFromHeader, hashApiKey } from "./api-keys.ts";

/**
 * 401 unless the request carries the live API key of an active agent; sets `c.var.agent` with the
 * agent's row as read in the same query.
 */
export function requireAgent(db: Database): MiddlewareHandler<AppEnv> {
  const authenticate = db
    .select({ keyId: apiKeys.id, agent: agents })
    .from(apiKeys)
    .innerJoin(agents, eq(agents.id, apiKeys.agentId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.revokedAt), eq(agents.isActive, true)))
    .limit(1)
    .prepare("authenticate_api_key");
  return async (c, next) => {
    // Already authenticated by an enclosing path's middleware: one key lookup per request.
    if (c.get("agent")) return next();
    const key = apiKeyFromHeader(c.req.header("authorization"));
    if (!key) throw unauthorized();
    const [found] = await authenticate.execute({ keyHash: hashApiKey(key) });
    if (!found) throw unauthorized();
    c.set("agent", { id: found.agent.id, keyId: found.keyId, row: found.agent });
    c.set("logger", c.get("logger").child({ agent_id: found.agent.id }));
    await next();
  };
}
