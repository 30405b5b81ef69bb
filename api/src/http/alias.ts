import type { RouteConfig } from "@hono/zod-openapi";

/*
 * The live service's paths, as aliases of ours: clients written for it (its MCP package, its
 * skill.md routines, its docs' examples) call them unchanged. An alias is a route definition derived
 * from ours (same guards, idempotency and rate limits: its `middleware` and `security` are ours) with
 * the live service's path and, where its clients send other names, its own request; its handler is
 * ours, registered again. The OpenAPI document marks it with `x-alias-of` (the operationId of ours)
 * and says so in its description; the SDK is generated without aliases (sdk/scripts
 * openapi-document.ts `withoutAliases`): a schema only an alias uses stays unnamed (no
 * `.openapi(name)`), so the SDK's types hold none of it.
 */

/** The OpenAPI extension that marks an alias: its value is the operationId of our route. */
export const ALIAS_OF = "x-alias-of";

type Aliased = RouteConfig & { operationId: string };

/** What differs from our route: the path, an operationId of its own, and what its clients send. */
interface AliasOptions<P extends string, M extends RouteConfig["method"]> {
  method?: M;
  path: P;
  operationId: string;
  /** Where ours is, as clients call it ("PATCH /api/agents/me"), for the description. */
  of: string;
  summary?: string;
  /** What this alias does besides ours (its other names, a check of its own), a sentence or two. */
  note?: string;
}

/** The definition of an alias of `route` (see above). */
export function aliasRoute<
  R extends Aliased,
  const P extends string,
  const M extends RouteConfig["method"] = R["method"],
  Q extends NonNullable<RouteConfig["request"]> = Record<never, never>,
  S extends RouteConfig["responses"] = R["responses"],
>(
  route: R,
  options: AliasOptions<P, M> & { request?: Q; responses?: S },
): Omit<R, "path" | "method" | "request" | "responses"> & {
  path: P;
  method: M;
  request: Omit<NonNullable<R["request"]>, keyof Q> & Q;
  responses: S;
} {
  const { method, path, operationId, of, summary, note, request, responses } = options;
  return {
    ...route,
    method: method ?? route.method,
    path,
    operationId,
    summary: summary ?? route.summary,
    description: [
      `Alias of \`${route.operationId}\` (${of}) for clients of the live service: same authentication, rules and limits.`,
      note,
      route.description,
    ]
      .filter(Boolean)
      .join(" "),
    // Ours, with what this alias's clients send instead (an idempotent write keeps its header).
    request: { ...route.request, ...request },
    responses: responses ?? route.responses,
    [ALIAS_OF]: route.operationId,
  } as never;
}
