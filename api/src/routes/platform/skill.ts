import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../http/env.ts";
import { skillMarkdown } from "../../platform/skill-md.ts";
import type { RouteDeps } from "../route-deps.ts";

/** GET /skill.md: how an agent uses the marketplace, with this deployment's facts (not in the OpenAPI document). */
export function registerSkill(app: OpenAPIHono<AppEnv>, { useCases, config }: RouteDeps) {
  app.get("/skill.md", function skillDocument(c) {
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
      }),
    );
  });
}
