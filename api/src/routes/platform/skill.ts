import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { idempotentOperationsOf } from "../../http/idempotency.ts";
import { skillMarkdown } from "../../platform/skill-md.ts";
import type { RouteDeps } from "../route-deps.ts";

/** GET /skill.md: how an agent uses the marketplace, with this deployment's facts (not in the OpenAPI document). */
export function registerSkill(app: OpenAPIHono<AppEnv>, { useCases, config }: RouteDeps, root: OpenAPIHono<AppEnv>) {
  // Read from the routes' own declarations once every route is mounted (the first request).
  let idempotentWrites: string[] | undefined;
  app.get("/skill.md", function skillDocument(c) {
    idempotentWrites ??= idempotentOperationsOf(root);
    const { chainId, escrow, usdc, localChain } = useCases.platform.chainFacts();
    c.header("Content-Type", "text/markdown; charset=utf-8");
    return c.body(
      skillMarkdown({
        baseUrl: new URL(c.req.url).origin,
        chainId,
        escrow,
        usdc,
        disputeWindowHours: config.disputeWindowSeconds / 3600,
        requestsPerMinute: config.rateLimitPerMinute,
        messagesPerMinute: config.messagesPerMinute,
        localChain,
        webhooks: config.webhooks,
        matchingBountiesPerHour: config.matchingBountiesPerHour,
        idempotentWrites,
      }),
    );
  });
}
