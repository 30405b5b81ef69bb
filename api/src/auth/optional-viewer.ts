import type { MiddlewareHandler } from "hono";
import type { GuardEnv } from "../http/env.ts";
import { hasCredential } from "./credential.ts";
import { type ArbiterCheck, arbiterStanding } from "./require-arbiter.ts";

/**
 * For public reads that show a little more to those involved (a dispute's reason and ruling note
 * to its parties and the arbiter): notes who the caller is, when its credential is good, as
 * `c.var.arbiter` or `c.var.agent`. Never refuses: a missing or bad credential reads as the public.
 */
export function optionalViewer(
  actingAgent: MiddlewareHandler<GuardEnv>,
  check: ArbiterCheck,
): MiddlewareHandler<GuardEnv> {
  return async (c, next) => {
    if (!hasCredential(c)) return next();
    if ((await arbiterStanding(c, check)) === "arbiter") c.set("arbiter", true);
    else await actingAgent(c, async () => {}).catch(() => undefined);
    await next();
  };
}
