import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerCase } from "./case.ts";
import { registerQueue } from "./queue.ts";

/*
 * /api/disputes: the arbiter's desk (the arbiter's key, or a session of the escrow's on-chain
 * arbiter): the queue of disputes and the whole case of one. The ruling itself is
 * POST /api/transactions/{id}/resolve.
 */
export function disputeRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerQueue(app, deps);
  registerCase(app, deps);
  return app;
}
