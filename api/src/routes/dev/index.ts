import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import { isLoopbackClient } from "../../http/request.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerFaucet } from "./faucet.ts";
import { registerRpc } from "./rpc.ts";

/*
 * /api/dev: development helpers, only on the local chain: the faucet (where USDC is the local
 * MockUSDC) and the dev wallet's RPC (the node's dev accounts sign, the arbiter's and the
 * operator's too). Elsewhere their use cases are absent, and then neither the routes nor their
 * documentation are. Whoever reaches them holds the arbiter's desk, so by default they answer
 * clients on this machine only (the web app's Dev wallet on a laptop), and anyone else as if they
 * were absent (404), also with HOST=0.0.0.0; DEV_ROUTES=on opens them to every client, off removes
 * them.
 */
export function devRoutes(deps: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { devRoutes: reach } = deps.config;
  if (reach === "off") return app;
  if (reach === "loopback") {
    app.use(async function onlyThisMachine(c, next) {
      if (!isLoopbackClient(c)) return c.notFound();
      await next();
    });
  }
  const { faucet } = deps.useCases.wallet;
  if (faucet) registerFaucet(app, faucet);
  const { rpc } = deps.useCases.devWallet;
  if (rpc) registerRpc(app, rpc, deps);
  return app;
}
