import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { confirmRoutes } from "./confirm.ts";
import { createRoutes } from "./create.ts";
import { deliverRoutes } from "./deliver.ts";
import { deliverableRoutes } from "./deliverable.ts";
import { detailRoutes } from "./detail.ts";
import { disputeRoutes } from "./dispute.ts";
import { evidenceRoutes } from "./evidence.ts";
import { listRoutes } from "./list.ts";
import { refundRoutes } from "./refund.ts";
import { releaseRoutes } from "./release.ts";
import { resolveRoutes } from "./resolve.ts";
import { reviewRoutes } from "./review.ts";
import { timelineRoutes } from "./timeline.ts";

/*
 * /api/transactions: the list and the detail (public); a direct escrow and the confirmation of an
 * external buyer's funding; the parties' moves (deliver, release, refund, dispute); the parties'
 * records (timeline, deliverable, evidence); the arbiter's ruling; and the buyer's review.
 * One file per route, each with its own guards.
 */
export function transactionRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.route("/", listRoutes(deps));
  app.route("/", detailRoutes(deps));
  app.route("/", createRoutes(deps));
  app.route("/", confirmRoutes(deps));
  app.route("/", deliverRoutes(deps));
  app.route("/", releaseRoutes(deps));
  app.route("/", refundRoutes(deps));
  app.route("/", disputeRoutes(deps));
  app.route("/", timelineRoutes(deps));
  app.route("/", deliverableRoutes(deps));
  app.route("/", evidenceRoutes(deps));
  app.route("/", resolveRoutes(deps));
  app.route("/", reviewRoutes(deps));
  return app;
}
