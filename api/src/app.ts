import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { hashApiKey } from "./auth/api-keys.ts";
import { cookieSession } from "./auth/cookie-session.ts";
import type { Deps } from "./deps.ts";
import { sellerSuffixSql } from "./domain/reads/listing-browse.ts";
import { listingIndexSync } from "./domain/reads/listing-index-sync.ts";
import { ReadCache } from "./domain/reads/read-cache.ts";
import { createUseCases } from "./domain/use-cases.ts";
import type { AppEnv } from "./http/env.ts";
import { ApiError, errorAnswer, errorResponse, validationHook } from "./http/errors.ts";
import { refuseUnfitInput } from "./http/fit-input.ts";
import { createGuards } from "./http/guards.ts";
import { clientIp } from "./http/request.ts";
import { webAppPolicy } from "./http/security-headers.ts";
import { webAppRoutes } from "./http/web-app.ts";
import { createMcpSessionStore } from "./mcp/session-store.ts";
import { createAppMetrics } from "./metrics/app-metrics.ts";
import { requestMetrics } from "./metrics/request-metrics.ts";
import { KeyHolders } from "./rate-limit/key-holders.ts";
import { IN_PROCESS_CALL, requestBudget } from "./rate-limit/middleware.ts";
import { agentRoutes } from "./routes/agents/index.ts";
import { authRoutes } from "./routes/auth/index.ts";
import { devRoutes } from "./routes/dev/index.ts";
import { disputeRoutes } from "./routes/disputes/index.ts";
import { feedRoutes } from "./routes/feed/index.ts";
import { listingRoutes } from "./routes/listings/index.ts";
import { mcpRoutes, resumeMcpSession } from "./routes/mcp.ts";
import { messageRoutes } from "./routes/messages/index.ts";
import { notificationRoutes } from "./routes/notifications/index.ts";
import { offerRoutes } from "./routes/offers/index.ts";
import { ownerRoutes } from "./routes/owner/index.ts";
import { apiPaths, withPaths } from "./routes/paths.ts";
import { platformRoutes } from "./routes/platform/index.ts";
import { registerLive } from "./routes/platform/probes.ts";
import { proposalRoutes } from "./routes/proposals/index.ts";
import { reviewFileRoutes } from "./routes/reviews/index.ts";
import type { RouteDeps } from "./routes/route-deps.ts";
import { transactionRoutes } from "./routes/transactions/index.ts";
import { walletRoutes } from "./routes/wallet/index.ts";

/** The whole HTTP API, built from its dependencies (no globals): tests build it the same way. */
export function createApp(given: Deps) {
  const readCache = given.readCache ?? new ReadCache(given.config.browseCacheMs);
  const listingIndex =
    given.listingIndex ??
    (given.config.browseIndex === "memory" ? listingIndexSync(given.db, sellerSuffixSql) : undefined);
  const keyHolders = given.keyHolders ?? new KeyHolders(given.db, given.config.arbiter?.apiKeyHash);
  const deps: Deps = { ...given, readCache, listingIndex, keyHolders };
  const useCases = createUseCases(deps, apiPaths);
  const guards = createGuards(deps, { ownProfileByKey: useCases.agents.ownProfileByKey });
  const metrics = createAppMetrics();
  const routeDeps: RouteDeps = { useCases, config: deps.config, readCache, metrics };
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use(requestId({ headerName: "X-Request-Id" }));
  const { instance } = deps.config;
  if (instance) {
    // Which of the cluster's processes answered (errors included): set on the finished answer.
    app.use(async (c, next) => {
      await next();
      c.res.headers.set("X-Api-Instance", instance);
    });
  }
  app.use(requestMetrics(metrics));
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
      throw new ApiError("payload_too_large", `Body larger than ${deps.config.bodyLimitBytes} bytes`);
    },
  });
  app.use((c, next) => (c.req.method === "GET" || c.req.method === "HEAD" ? next() : limitBody(c, next)));

  // Liveness answers before the session cookie and the budget, which may ask Postgres: a database
  // that is down must not make every process look dead (routes/platform/probes.ts).
  registerLive(app);
  // Before the budget and every guard: a browser's session cookie is admitted (CSRF-checked) here.
  app.use("/api/*", cookieSession(deps.db, deps.config));
  // The guards routes declare in their definitions (http/guards.ts `guard`) run the app's own.
  app.use("/api/*", async (c, next) => {
    c.set("guards", guards);
    await next();
  });
  const budget = requestBudget(deps.rateLimitStore, {
    db: deps.db,
    perKeyPerMinute: deps.config.rateLimitPerMinute,
    perIpPerMinute: deps.config.rateLimitPerIpPerMinute,
    ipOf: (c) => clientIp(c, deps.config.trustProxy),
    keyHolders,
  });
  app.use("/api/*", budget);
  // After the budget (a refused request spends it too): strings Postgres cannot hold (U+0000, lone
  // surrogates) and JSON nested too deep are 400 on every route.
  app.use("/api/*", refuseUnfitInput());

  app.route("/api/agents", agentRoutes(routeDeps));
  app.route("/api/listings", listingRoutes(routeDeps));
  app.route("/api/transactions", transactionRoutes(routeDeps));
  app.route("/api/disputes", disputeRoutes(routeDeps));
  app.route("/api/wallet", walletRoutes(routeDeps));
  app.route("/api/dev", devRoutes(routeDeps));
  app.route("/api/messages", messageRoutes(routeDeps));
  app.route("/api/feed", feedRoutes(routeDeps));
  app.route("/api/notifications", notificationRoutes(routeDeps));
  app.route("/api/offers", offerRoutes(routeDeps));
  app.route("/api/proposals", proposalRoutes(routeDeps));
  app.route("/api/reviews", reviewFileRoutes(routeDeps));
  app.route("/api/auth", authRoutes(routeDeps));
  app.route("/api/owner", ownerRoutes(routeDeps));
  // Last: the platform's URLs share no prefix (/api/health, /api/stats, /api/info, /api/openapi.json,
  // /docs, /skill.md), so it is mounted at the root; its OpenAPI document describes the whole app.
  app.route("/", platformRoutes(routeDeps, app));
  // /mcp calls this same app in process; each /mcp request spends the caller's budget once (its
  // tools' calls in process are not counted again).
  // A request naming an MCP session acts with the key it keeps: resumed before the budget.
  const mcpSessions = createMcpSessionStore(deps.db, deps.config.masterKey);
  app.use("/mcp", resumeMcpSession(mcpSessions));
  app.use("/mcp", budget);
  app.route(
    "/mcp",
    mcpRoutes(
      (request, env) => app.fetch(request, { ...(env as object), [IN_PROCESS_CALL]: true } as never),
      (key) => deps.config.arbiter !== undefined && hashApiKey(key) === deps.config.arbiter.apiKeyHash,
      mcpSessions,
      { localChain: useCases.wallet.faucet !== undefined },
    ),
  );

  // Last of all: the web app at / (its pages and assets), for every GET no API route answered.
  app.route("/", webAppRoutes({ distDir: deps.config.webDistDir, policy: webAppPolicy(deps.config) }));

  app.notFound((c) => errorAnswer(c, "not_found", `No route ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => errorResponse(withPaths(error), c));
  return app;
}

export type App = ReturnType<typeof createApp>;
