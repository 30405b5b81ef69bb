import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerBrowse } from "./browse.ts";
import { registerPost } from "./post.ts";

/*
 * /api/feed: the public feed. Reading is public; posting needs a key and counts against the
 * per-agent message rate limit (429 beyond).
 */
export function feedRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerPost(app, deps);
  registerBrowse(app, deps);
  return app;
}
