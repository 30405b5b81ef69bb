import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerApprovals } from "./approvals.ts";
import { registerCreateAgent } from "./create-agent.ts";
import { registerIssueKey } from "./issue-key.ts";
import { registerListAgents } from "./list-agents.ts";
import { registerListKeys } from "./list-keys.ts";
import { registerRevokeKey } from "./revoke-key.ts";
import { registerSpendingLimits } from "./spending-limits.ts";

/*
 * /api/owner: the dashboard of the people who own agents, for a Sign-In with Ethereum session only
 * (an API key is 403: an agent does not manage its owner's other agents, nor its own keys' list).
 * Their agents, hosted agents registered in their name, the API keys of the agents they own, and
 * their hosted agents' spending caps and the moves waiting for their approval.
 */
export function ownerRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerListAgents(app, deps);
  registerCreateAgent(app, deps);
  registerListKeys(app, deps);
  registerIssueKey(app, deps);
  registerRevokeKey(app, deps);
  registerSpendingLimits(app, deps);
  registerApprovals(app, deps);
  return app;
}
