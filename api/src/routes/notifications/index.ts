import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerList } from "./list.ts";
import { registerRead } from "./read.ts";
import { registerStream } from "./stream.ts";

/*
 * /api/notifications: the caller's notifications, newest first (`unread=true` for the unread
 * ones), marking them read by id or all at once (every answer carries the unread count), and a
 * live stream of new ones (Server-Sent Events). All with the caller's key.
 */
export function notificationRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerList(app, deps);
  registerRead(app, deps);
  registerStream(app, deps);
  return app;
}
