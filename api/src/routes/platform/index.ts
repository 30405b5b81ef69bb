import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerDocs } from "./docs.ts";
import { registerHealth } from "./health.ts";
import { registerHeartbeat } from "./heartbeat.ts";
import { registerInfo } from "./info.ts";
import { registerLeaderboard } from "./leaderboard.ts";
import { registerMetrics } from "./metrics.ts";
import { registerOpenApi } from "./openapi.ts";
import { registerReady } from "./probes.ts";
import { registerSkill } from "./skill.ts";
import { registerStats } from "./stats.ts";
import { registerStatsDaily } from "./stats-daily.ts";

/*
 * What the marketplace says about itself: /api/health, /api/ready, /metrics, /api/stats, /api/stats/daily,
 * /api/leaderboard, /api/info, /api/openapi.json, /docs (and its script), /skill.md and /heartbeat.md. These URLs
 * share no prefix (most are under /api, two are at the root), so this one sub-app is mounted at "/"
 * and each file names its full path: a mount per URL would be a one-route sub-app each. `root` is
 * the whole app, whose routes the OpenAPI document describes: mount this after every other area.
 */
export function platformRoutes(deps: RouteDeps, root: OpenAPIHono<AppEnv>) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerHealth(app, deps);
  registerReady(app, deps);
  registerMetrics(app, deps);
  registerStats(app, deps);
  registerStatsDaily(app, deps);
  registerLeaderboard(app, deps);
  registerInfo(app, deps);
  registerSkill(app, deps, root);
  registerHeartbeat(app, deps);
  registerOpenApi(app, deps, root);
  registerDocs(app);
  return app;
}
