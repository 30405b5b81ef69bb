import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import type { Deps } from "./deps.ts";
import { createUseCases } from "./domain/use-cases.ts";
import type { AppEnv } from "./http/env.ts";
import { ApiError, errorResponse, validationHook } from "./http/errors.ts";
import { createGuards } from "./http/guards.ts";
import { ReadCache } from "./http/read-cache.ts";
import { clientIp } from "./http/request.ts";
import { keyOwnerLookup, requestBudget } from "./rate-limit/middleware.ts";
import { agentRoutes } from "./routes/agents.ts";
import { erc8004Routes } from "./routes/erc8004.ts";
import { listingRoutes } from "./routes/listings.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { messageRoutes } from "./routes/messages.ts";
import { notificationRoutes } from "./routes/notifications.ts";
import { platformRoutes } from "./routes/platform.ts";
import { platformSummaryRoutes } from "./routes/platform-summary.ts";
import { purchaseRoutes } from "./routes/purchases.ts";
import { reputationRoutes } from "./routes/reputation.ts";
import { reviewRoutes } from "./routes/reviews.ts";
import type { RouteDeps } from "./routes/route-deps.ts";
import { transactionFundingRoutes } from "./routes/transaction-funding.ts";
import { transactionMoveRoutes } from "./routes/transaction-moves.ts";
import { transactionRecordRoutes } from "./routes/transaction-records.ts";
import { transactionRoutes } from "./routes/transactions.ts";
import { userAuthRoutes } from "./routes/user-auth.ts";
import { walletRoutes } from "./routes/wallet.ts";
import { webhookRoutes } from "./routes/webhooks.ts";

/** The whole HTTP API, built from its dependencies (no globals): tests build it the same way. */
export function createApp(given: Deps) {
  const readCache = given.readCache ?? new ReadCache(given.config.browseCacheMs);
  const deps: Deps = { ...given, readCache };
  const routeDeps: RouteDeps = {
    useCases: createUseCases(deps),
    guards: createGuards(deps),
    config: deps.config,
    readCache,
  };
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use(requestId({ headerName: "X-Request-Id" }));
  app.use(async (c, next) => {
    const started = performance.now();
    const logger = deps.logger.child({ request_id: c.get("requestId") });
    c.set("logger", logger);
    await next();
    logger.info(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) },
      "request",
    );
  });
  // Only for methods with a body: asking a GET for its body makes the Node adapter build a full Request.
  const limitBody = bodyLimit({
    maxSize: deps.config.bodyLimitBytes,
    onError: () => {
      throw new ApiError(413, "payload_too_large", `Body larger than ${deps.config.bodyLimitBytes} bytes`);
    },
  });
  app.use((c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));

  app.use(
    "/api/*",
    requestBudget(deps.rateLimitStore, {
      perKeyPerMinute: deps.config.rateLimitPerMinute,
      perIpPerMinute: deps.config.rateLimitPerIpPerMinute,
      ipOf: (c) => clientIp(c, deps.config.trustProxy),
      ownerOfKey: keyOwnerLookup(deps.db),
    }),
  );

  app.route("/api/agents", agentRoutes(deps));
  app.route("/api/listings", listingRoutes(deps));
  app.route("/api/listings", purchaseRoutes(deps));
  app.route("/api/transactions", transactionRoutes(deps));
  app.route("/api/transactions", transactionFundingRoutes(deps));
  app.route("/api/transactions", transactionMoveRoutes(deps));
  app.route("/api/transactions", transactionRecordRoutes(deps));
  app.route("/", walletRoutes(deps));
  app.route("/", messageRoutes(deps));
  app.route("/", notificationRoutes(deps));
  app.route("/", webhookRoutes(deps));
  app.route("/", reviewRoutes(deps));
  app.route("/", userAuthRoutes(deps));
  app.route("/", reputationRoutes(deps));
  app.route("/", erc8004Routes(deps));
  app.route("/", platformSummaryRoutes(deps));
  app.route("/", platformRoutes(deps, app));
  app.route(
    "/",
    mcpRoutes((request, env) => app.fetch(request, env as never)),
  );

  app.notFound((c) =>
    c.json({ error: `No route ${c.req.method} ${c.req.path}`, code: "not_found", request_id: c.get("requestId") }, 404),
  );
  app.onError(errorResponse);
  return app;
}

export type App = ReturnType<typeof createApp>;
