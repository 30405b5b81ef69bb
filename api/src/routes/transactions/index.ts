import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerConfirm } from "./confirm.ts";
import { registerCreate } from "./create.ts";
import { registerDeliver } from "./deliver.ts";
import { registerDeliverable } from "./deliverable.ts";
import { registerDetail } from "./detail.ts";
import { registerDispute } from "./dispute.ts";
import { registerEvidence } from "./evidence.ts";
import { registerList } from "./list.ts";
import { registerRefund } from "./refund.ts";
import { registerRelease } from "./release.ts";
import { registerResolve } from "./resolve.ts";
import { registerReview } from "./review.ts";
import { registerTimeline } from "./timeline.ts";

/*
 * /api/transactions: the list and the detail (public); a direct escrow and the confirmation of an
 * external buyer's funding; the parties' moves (deliver, release, refund, dispute); the parties'
 * records (timeline, deliverable, evidence); the arbiter's ruling; and the buyer's review.
 */
export function transactionRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerList(app, deps);
  registerDetail(app, deps);
  registerCreate(app, deps);
  registerConfirm(app, deps);
  registerDeliver(app, deps);
  registerRelease(app, deps);
  registerRefund(app, deps);
  registerDispute(app, deps);
  registerTimeline(app, deps);
  registerDeliverable(app, deps);
  registerEvidence(app, deps);
  registerResolve(app, deps);
  registerReview(app, deps);
  return app;
}
