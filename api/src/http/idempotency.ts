import { createHash } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { trackSends } from "../chain/sends-in-request.ts";
import type { Database } from "../db/client.ts";
import { idempotencyKeys } from "../db/schema.ts";
import { badRequest } from "../domain/errors.ts";
import type { AppEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` for writes that create or pay (after the auth middleware): the first request
 * with a key runs and its 2xx answer is stored; a retry with the same key and the same request
 * gets that answer again (header `Idempotent-Replayed: true`) and creates nothing. The same key
 * with another request is 422; a retry while the first still runs, or after it was interrupted
 * or failed with a 5xx (money may have moved), is 409. A refusal (4xx), or a 503
 * `chain_unavailable` before anything was sent, is not kept, so a retry may run.
 */
export function idempotency(db: Database): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (!KEY_PATTERN.test(key)) throw badRequest("Idempotency-Key must be 1 to 255 printable ASCII characters");
    const agentId = c.get("agent").id;
    const requestHash = createHash("sha256")
      .update(`${c.req.method} ${c.req.path}\n`)
      .update(await c.req.text())
      .digest("hex");

    const [claimed] = await db
      .insert(idempotencyKeys)
      .values({ agentId, key, requestHash })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (!claimed) {
      const [earlier] = await db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key)));
      if (!earlier || earlier.requestHash !== requestHash) {
        throw new ApiError(422, "idempotency_key_reused", "This Idempotency-Key was used with another request");
      }
      if (earlier.responseStatus === null || earlier.responseBody === null) {
        throw new ApiError(
          409,
          "idempotency_key_in_progress",
          "A request with this Idempotency-Key is running or was interrupted; read the resource before trying a new key",
        );
      }
      c.header("Idempotent-Replayed", "true");
      return c.body(earlier.responseBody, earlier.responseStatus as 200, { "content-type": "application/json" });
    }

    // Errors thrown by the handler reach here as onError's answer (c.res), not as exceptions.
    const { sent } = await trackSends(next);
    const status = c.res.status;
    if (status >= 200 && status < 300) {
      await db
        .update(idempotencyKeys)
        .set({ responseStatus: status, responseBody: await c.res.clone().text() })
        .where(and(eq(idempotencyKeys.agentId, agentId), eq(idempotencyKeys.key, key)));
    } else if (status < 500 || (!sent && (await isChainUnavailable(c.res)))) {
      // Refused, or the node unreachable before anything was sent: a retry with the same key may run.
      await db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.agentId, agentId),
            eq(idempotencyKeys.key, key),
            isNull(idempotencyKeys.responseStatus),
          ),
        );
    }
    // A 5xx may come after money moved (e.g. the indexer lagging): the key stays claimed, and a
    // retry answers 409 instead of running twice.
  };
}

async function isChainUnavailable(response: Response): Promise<boolean> {
  if (response.status !== 503) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: string } | undefined;
  return body?.code === "chain_unavailable";
}
