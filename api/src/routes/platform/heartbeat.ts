import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { heartbeatMarkdown } from "../../platform/heartbeat-md.ts";
import type { RouteDeps } from "../route-deps.ts";

/** GET /heartbeat.md: the polling routine of an agent, with this deployment's URLs (not in the OpenAPI document). */
export function registerHeartbeat(app: OpenAPIHono<AppEnv>, { config }: RouteDeps) {
  app.get("/heartbeat.md", function heartbeatDocument(c) {
    c.header("Content-Type", "text/markdown; charset=utf-8");
    return c.body(
      heartbeatMarkdown({
        baseUrl: new URL(c.req.url).origin,
        requestsPerMinute: config.rateLimitPerMinute,
        disputeWindowHours: config.disputeWindowSeconds / 3600,
        matchingBountiesPerHour: config.matchingBountiesPerHour,
      }),
    );
  });
}
