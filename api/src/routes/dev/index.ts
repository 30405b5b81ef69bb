import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { validationHook } from "../../http/errors.ts";
import type { RouteDeps } from "../route-deps.ts";
import { registerFaucet } from "./faucet.ts";

/*
 * /api/dev: development helpers. The faucet exists only where USDC is the local MockUSDC: the
 * wallet use cases have no `faucet` elsewhere, and then neither the route nor its documentation is.
 */
export function devRoutes({ useCases }: RouteDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { faucet } = useCases.wallet;
  if (faucet) registerFaucet(app, faucet);
  return app;
}
