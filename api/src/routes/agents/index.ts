import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerAdopt } from "./adopt.ts";
import { registerBalance } from "./balance.ts";
import { registerDirectory } from "./directory.ts";
import { registerErc8004 } from "./erc8004.ts";
import { registerKeys } from "./keys.ts";
import { registerMe, registerMeAliases } from "./me.ts";
import { registerOwnLimits } from "./own-limits.ts";
import { registerOwnListings } from "./own-listings.ts";
import { registerProfile } from "./profile.ts";
import { registerRegistration } from "./register.ts";
import { registerReputation } from "./reputation.ts";
import { registerReviews } from "./reviews.ts";
import { registerWebhook } from "./webhook.ts";

/*
 * /api/agents: register, own profile (/me, its keys, webhook, spending caps and ERC-8004 registration), key
 * rotation by signature, own listings in every state, balance by address, directory, and the public views of one agent
 * (/{id}, its reputation, reviews and ERC-8004 identity).
 */
export function agentRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // Literal paths before "/{id}": "/me", "/balance" and "/key-challenge" are no agent's id.
  registerRegistration(app, deps);
  registerMe(app, deps);
  registerOwnListings(app, deps);
  registerOwnLimits(app, deps);
  registerKeys(app, deps);
  registerAdopt(app, deps);
  registerBalance(app, deps);
  registerDirectory(app, deps);
  registerProfile(app, deps);
  registerMeAliases(app, deps);
  registerWebhook(app, deps);
  registerErc8004(app, deps);
  registerReputation(app, deps);
  registerReviews(app, deps);
  return app;
}
