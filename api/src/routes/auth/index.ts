import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerLogin } from "./login.ts";
import { registerLogout } from "./logout.ts";
import { registerNonce } from "./nonce.ts";
import { registerSession } from "./session.ts";

/*
 * /api/auth: user authentication for the owners of agents, Sign-In with Ethereum (EIP-4361). GET a
 * nonce, sign a SIWE message for this host and chain with it, POST it to /login: the answer is a
 * session token (Bearer). The session routes read their token themselves (no guard).
 */
export function authRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerNonce(app, deps);
  registerLogin(app, deps);
  registerLogout(app, deps);
  registerSession(app, deps);
  return app;
}
