import type { MiddlewareHandler } from "hono";
import { forbidden, unauthorized } from "../domain/shared/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { apiKeyOf, sessionTokenOf } from "./credential.ts";
import { type ArbiterCheck, arbiterStanding } from "./require-arbiter.ts";
import { requestSession } from "./user-sessions.ts";

/**
 * The owners' routes (/api/owner): a live Sign-In with Ethereum session, set as `c.var.session`.
 * A live agent's key (or the arbiter's) is the wrong kind of credential for them: 403; no
 * credential, a key nobody holds (as on every other route) or a session that has ended: 401.
 */
export function requireOwner(check: ArbiterCheck): MiddlewareHandler<AppEnv> {
  const { db } = check;
  return async (c, next) => {
    const token = sessionTokenOf(c);
    if (!token) {
      if (apiKeyOf(c) && (await arbiterStanding(c, check)) !== "none") {
        throw forbidden("Owner routes take a Sign-In with Ethereum session, not an API key");
      }
      throw unauthorized("Sign in with Ethereum (POST /api/auth/login) and send the session token");
    }
    const session = await requestSession(c, db, token);
    if (!session) throw unauthorized();
    c.set("session", { id: session.id, address: session.address });
    c.get("logger").setBindings({ session_id: session.id });
    await next();
  };
}
