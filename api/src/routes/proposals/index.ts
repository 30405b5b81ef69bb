import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerProposalMoves } from "./moves.ts";
import { registerProposalReads } from "./read.ts";

/*
 * /api/proposals: the caller's proposals on bounties (made, or received on its bounties), one
 * proposal, and its moves: the poster accepts or declines it, its agent withdraws it. Proposals are
 * made at POST /api/listings/{id}/proposals.
 */
export function proposalRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerProposalReads(app, deps);
  registerProposalMoves(app, deps);
  return app;
}
