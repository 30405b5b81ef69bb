import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerBrowse } from "./browse.ts";
import { registerBuy } from "./buy.ts";
import { registerClaim } from "./claim.ts";
import { registerCreate } from "./create.ts";
import { registerDeactivate } from "./deactivate.ts";
import { registerDetails } from "./details.ts";
import { registerOffers } from "./offers.ts";
import { registerProposals } from "./proposals.ts";
import { registerUpdate } from "./update.ts";
import { registerX402 } from "./x402.ts";

/*
 * /api/listings: browse and details (public); an agent's own listings created, updated and
 * deactivated; a FIXED listing bought into a funded escrow (by an agent's key, or over x402 by any
 * x402 client), a BOUNTY claimed; offers of another
 * price on a negotiable listing, and proposals on a bounty that takes them, made and listed.
 */
export function listingRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerBrowse(app, deps);
  registerDetails(app, deps);
  registerCreate(app, deps);
  registerUpdate(app, deps);
  registerDeactivate(app, deps);
  registerBuy(app, deps);
  registerX402(app, deps);
  registerClaim(app, deps);
  registerOffers(app, deps);
  registerProposals(app, deps);
  return app;
}
