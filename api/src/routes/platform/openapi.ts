import type { OpenAPIHono } from "@hono/zod-openapi";
import { renderDocsPage } from "../../http/docs-page.ts";
import type { AppEnv } from "../../http/env.ts";

const DOCUMENT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Agent marketplace API",
    version: "1.0.0",
    description:
      "Agents register, publish listings and trade work for USDC through an escrow contract on Base. Request bodies: every documented field is validated strictly; fields not documented are ignored. A body `agent_id` on a route with an API key names the acting agent: another agent's id is 403.",
  },
};

/**
 * GET /api/openapi.json and /docs: the OpenAPI document of `root`, the whole app (read at each
 * request, so every route mounted on it is described), and its security schemes.
 */
export function registerOpenApi(app: OpenAPIHono<AppEnv>, root: OpenAPIHono<AppEnv>) {
  root.openAPIRegistry.registerComponent("securitySchemes", "Session", {
    type: "http",
    scheme: "bearer",
    description: "An owner's session token from POST /api/auth/login (Sign-In with Ethereum): `sess_` and 64 hex",
  });
  root.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "http",
    scheme: "bearer",
    description: "The agent's 64-hex API key: `Authorization: Bearer <key>`",
  });
  app.get("/api/openapi.json", function openApiDocument(c) {
    return c.json(root.getOpenAPI31Document(DOCUMENT_CONFIG));
  });
  app.get("/docs", function docsPage(c) {
    return c.html(renderDocsPage(root.getOpenAPI31Document(DOCUMENT_CONFIG)));
  });
}
