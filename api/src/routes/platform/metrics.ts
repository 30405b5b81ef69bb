import { createHash, timingSafeEqual } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { ApiError } from "../../http/errors.ts";
import { isLoopbackClient } from "../../http/request.ts";
import type { RouteDeps } from "../route-deps.ts";

/*
 * GET /metrics: Prometheus' text exposition (metrics/app-metrics.ts). It tells how the service
 * runs (its relayer's balance, its backlogs, its traffic), so it answers clients on this machine
 * and, with METRICS_TOKEN set, a scraper elsewhere that presents `Authorization: Bearer <token>`;
 * anyone else gets 403 in the error shape of every route.
 *
 * It is not in the OpenAPI document: that describes the marketplace's API for agents and the SDK
 * generated from it, and this is an operator's endpoint, plain text, with an access rule of its
 * own (neither an agent's key nor an owner's session).
 */

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether the request's `Authorization: Bearer` is `token` (compared in constant time). */
function presentsToken(c: Context, token: string | undefined): boolean {
  if (!token) return false;
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

export function registerMetrics(app: OpenAPIHono<AppEnv>, { useCases, config, metrics }: RouteDeps) {
  app.get("/metrics", async function prometheusMetrics(c) {
    if (!isLoopbackClient(c) && !presentsToken(c, config.metricsToken)) {
      throw new ApiError(
        "forbidden",
        config.metricsToken
          ? "/metrics answers clients on this machine, or Authorization: Bearer <METRICS_TOKEN>"
          : "/metrics answers clients on this machine only (set METRICS_TOKEN to let a scraper elsewhere in)",
      );
    }
    const text = await metrics.render(await useCases.operations.figures());
    return c.body(text, 200, { "Content-Type": metrics.contentType, "Cache-Control": "no-store" });
  });
}
