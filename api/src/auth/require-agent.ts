import { and, eq, isNull, sql } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { Database } from "../db/client.ts";
import { agents, apiKeys } from "../db/schema.ts";
import { forbidden, unauthorized } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import type { AppEnv } from "../http/env.ts";
import { apiKeyFromHeader, hashApiKey } from "./api-keys.ts";

/**
 * 401 unless the request carries the live API key of an active agent; sets `c.var.agent` with the
 * agent's row as read in the same query. Applied twice to one request, it checks once. A JSON
 * body's `agent_id` naming another agent is refused (see {@link refuseOtherAgentId}).
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
    // Already authenticated by an enclosing route group's check of the same header.
    if (c.get("agent")) return next();
    const key = apiKeyFromHeader(c.req.header("authorization"));
    if (!key) throw unauthorized();
    const [found] = await authenticate.execute({ keyHash: hashApiKey(key) });
    if (!found) throw unauthorized();
    await refuseOtherAgentId(c, found.agent.id);
    c.set("agent", { id: found.agent.id, keyId: found.keyId, row: found.agent });
    c.set("logger", c.get("logger").child({ agent_id: found.agent.id }));
    await next();
  };
}

/**
 * Clients written for the live service send `agent_id` in the bodies of an agent's writes (a
 * review, a delivery): it names the agent acting. On every keyed route, a body whose `agent_id`
 * is another agent's uuid is refused with 403, whether or not the route's schema declares the field;
 * one that is not a uuid is left to the schema (400 where declared, ignored where not).
 */
export async function refuseOtherAgentId(c: Context<AppEnv>, actingAgentId: string): Promise<void> {
  if (c.req.method === "GET" || c.req.method === "HEAD") return;
  if (!c.req.header("content-type")?.toLowerCase().includes("application/json")) return;
  // Parsed once: the route's validator reads the same cached body.
  const body: unknown = await c.req.json().catch(() => undefined);
  const named = typeof body === "object" && body !== null ? (body as { agent_id?: unknown }).agent_id : undefined;
  if (typeof named === "string" && isUuid(named) && named.toLowerCase() !== actingAgentId.toLowerCase()) {
    throw forbidden("agent_id names another agent than the one this API key acts for");
  }
}
