import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerFaucet } from "./faucet.ts";
import { registerRpc } from "./rpc.ts";

/*
 * /api/dev: development helpers, only on the local chain: the faucet (where USDC is the local
 * MockUSDC) and the dev wallet's RPC (the node's dev accounts sign). Elsewhere their use cases are
 * absent, and then neither the routes nor their documentation are.
 */
export function devRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { faucet } = deps.useCases.wallet;
  if (faucet) registerFaucet(app, faucet);
  const { rpc } = deps.useCases.devWallet;
  if (rpc) registerRpc(app, rpc, deps);
  return app;
}
