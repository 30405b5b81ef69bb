import { createHash } from "node:crypto";
import { createRoute, type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { trackSends } from "../chain/sends-in-request.ts";
import { openSecret, sealSecret } from "../crypto/secret-box.ts";
import type { Database } from "../db/client.ts";
import { idempotencyKeys } from "../db/schema.ts";
import { badRequest } from "../domain/shared/errors.ts";
import { errorResponses } from "../schemas/common.ts";
import type { AppEnv, Guard, GuardEnv } from "./env.ts";
import { ApiError } from "./errors.ts";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** How often a request claims a key that others keep claiming and freeing before it answers 409. */
const CLAIM_ATTEMPTS = 5;

/** The request header, as the OpenAPI document publishes it on every idempotent write. */
const IdempotencyKeyHeaders = z.object({
  // Header names are matched whatever their case (the validator maps them to this key).
  "Idempotency-Key": z.string().regex(KEY_PATTERN).optional().openapi({
    description:
      "Optional, 1 to 255 printable ASCII characters, chosen by the caller (e.g. a UUID) per intended write. A retry with the same key and the same request answers what the first run answered (header `Idempotent-Replayed: true`) and creates or moves nothing again; the same key with another request is 422; while the first run is still going (or was interrupted after money may have moved) 409. A refused request (4xx) does not keep the key. Keys belong to the caller (the agent, an owner, the arbiter).",
    example: "5f0c2f5e-8f3a-4d5b-9c1e-2a7b6c8d9e0f",
  }),
});

/** A guard a route declares (http/guards.ts `guard`), whatever it sets. */
type DeclaredGuard = (c: never, next: never) => unknown;

/**
 * `createRoute` for a write that honours `Idempotency-Key`: the header joins the route's request (so
 * the OpenAPI document, and the SDK generated from it, know) and the app's Idempotency-Key
 * middleware runs after the guards the route declares (`middleware`: one, or a list in order, at
 * least the one that authenticates the caller whose keys these are) and before the route's
 * validators. These declarations are the only list of idempotent writes.
 */
export function createIdempotentRoute<
  P extends string,
  const M extends DeclaredGuard | DeclaredGuard[],
  R extends Omit<RouteConfig, "path" | "middleware"> & { path: P; method: "post" },
>(route: R & { middleware: M }) {
  const guards = (Array.isArray(route.middleware) ? route.middleware : [route.middleware]) as MiddlewareHandler[];
  const created = createRoute({
    ...(route as unknown as RouteConfig),
    request: { ...route.request, headers: IdempotencyKeyHeaders },
    // A malformed key (400), a run still going (409), a key used with another request (422).
    responses: { ...errorResponses(400, 409, 422), ...route.responses },
    middleware: [...guards, honourIdempotencyKey as MiddlewareHandler],
  });
  return created as unknown as Omit<R, "request" | "middleware"> & {
    request: NonNullable<R["request"]> & { headers: typeof IdempotencyKeyHeaders };
    middleware: [...(M extends DeclaredGuard[] ? M : [M]), Guard];
  };
}

/** "POST /api/…" of every operation of `app`'s OpenAPI document that declares Idempotency-Key, sorted. */
export function idempotentOperationsOf(app: OpenAPIHono<AppEnv>): string[] {
  const { paths = {} } = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "", version: "" } });
  return Object.entries(paths)
    .flatMap(([path, item]) =>
      (["post", "put", "patch", "delete"] as const)
        .filter((method) =>
          item[method]?.parameters?.some((p) => "in" in p && p.in === "header" && p.name === "Idempotency-Key"),
        )
        .map((method) => `${method.toUpperCase()} ${path}`),
    )
    .sort();
}

/** The route middleware `createIdempotentRoute` declares: the app's own (http/guards.ts, on the context by app.ts). */
const honourIdempotencyKey: Guard = (c, next) => (c.var.guards.idempotency as Guard)(c, next);

/**
 * Whose keys a request's are: the acting agent (by its key or an owner's session acting for it), else
 * the signed-in owner, else the arbiter. An idempotent write behind none of these is a bug.
 */
function keySubject(c: Context<GuardEnv>): string {
  const { agent, session, arbiter } = c.var;
  if (agent) return agent.id;
  if (session) return `owner:${session.address}`;
  if (arbiter) return "arbiter";
  throw new Error(`${c.req.method} ${c.req.path} is declared idempotent but has no authenticated caller`);
}

/**
 * `Idempotency-Key` for writes that create or pay (after the auth middleware): the first request
 * with a key runs and its 2xx answer is stored; a retry with the same key and the same request
 * gets that answer again (header `Idempotent-Replayed: true`) and creates nothing. The same key
 * with another request is 422; a retry while the first still runs, or after it was interrupted
 * or failed with a 5xx (money may have moved), is 409. A refusal (4xx), or a 503
 * `chain_unavailable` before anything was sent, is not kept, so a retry may run. Answers are
 * stored sealed under the master key: some hold a secret shown once (an API key issued).
 */
export function idempotency(db: Database, masterKey: Buffer): MiddlewareHandler<GuardEnv> {
  return async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (key === undefined) return next();
    if (!KEY_PATTERN.test(key)) throw badRequest("Idempotency-Key must be 1 to 255 printable ASCII characters");
    const subject = keySubject(c);
    const sealContext = `idempotency:${subject}:${key}`;
    const requestHash = createHash("sha256")
      .update(`${c.req.method} ${c.req.path}\n`)
      .update(await c.req.text())
      .digest("hex");

    // A refused run frees its key (below): a claim that met its row may find it gone when reading
    // it, and claims again rather than taking the key as used by another request.
    let earlier: typeof idempotencyKeys.$inferSelect | undefined;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS && !earlier; attempt++) {
      const [claimed] = await db
        .insert(idempotencyKeys)
        .values({ subject, key, requestHash })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (claimed) break;
      [earlier] = await db
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.subject, subject), eq(idempotencyKeys.key, key)));
      if (!earlier && attempt === CLAIM_ATTEMPTS - 1) {
        throw new ApiError(
          "idempotency_key_in_progress",
          "Requests with this Idempotency-Key keep running and being refused; try again shortly",
        );
      }
    }
    if (earlier) {
      if (earlier.requestHash !== requestHash) {
        throw new ApiError("idempotency_key_reused", "This Idempotency-Key was used with another request");
      }
      if (earlier.responseStatus === null || earlier.responseBody === null) {
        throw new ApiError(
          "idempotency_key_in_progress",
          "A request with this Idempotency-Key is running or was interrupted; read the resource before trying a new key",
        );
      }
      c.header("Idempotent-Replayed", "true");
      const body = earlier.responseBody.startsWith("{")
        ? earlier.responseBody // stored before answers were sealed
        : openSecret(earlier.responseBody, sealContext, masterKey).toString();
      return c.body(body, earlier.responseStatus as 200, { "content-type": "application/json" });
    }

    // Errors thrown by the handler reach here as onError's answer (c.res), not as exceptions.
    const { sent } = await trackSends(next);
    const status = c.res.status;
    if (status >= 200 && status < 300) {
      await db
        .update(idempotencyKeys)
        .set({
          responseStatus: status,
          responseBody: sealSecret(Buffer.from(await c.res.clone().text()), sealContext, masterKey),
        })
        .where(and(eq(idempotencyKeys.subject, subject), eq(idempotencyKeys.key, key)));
    } else if (status < 500 || (!sent && (await isChainUnavailable(c.res)))) {
      // Refused, or the node unreachable before anything was sent: a retry with the same key may run.
      await db
        .delete(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.subject, subject),
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
