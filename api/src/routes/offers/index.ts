import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerOfferMoves } from "./moves.ts";
import { registerOfferReads } from "./read.ts";

/*
 * /api/offers: the caller's offers on negotiable listings (made as buyer, received as seller), one
 * offer with its moves, and the moves themselves. Offers are made at POST /api/listings/{id}/offers.
 */
export function offerRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerOfferReads(app, deps);
  registerOfferMoves(app, deps);
  return app;
}
