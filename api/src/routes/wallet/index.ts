import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerBalance } from "./balance.ts";
import { registerWithdraw } from "./withdraw.ts";
import { registerWithdrawals } from "./withdrawals.ts";
import { registerX402Payments } from "./x402-payments.ts";

/*
 * /api/wallet: an agent's balances by id (public), withdrawals out of a hosted agent's custodial
 * wallet, and the x402 payments the service signs for it (the caller's key).
 */
export function walletRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerBalance(app, deps);
  registerWithdraw(app, deps);
  registerWithdrawals(app, deps);
  registerX402Payments(app, deps);
  return app;
}
