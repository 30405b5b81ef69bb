import type { OpenAPIHono } from "@hono/zod-openapi";
import { CSRF_HEADER, SESSION_COOKIE } from "../../auth/cookie-session.ts";
import type { AppEnv } from "../../http/env.ts";

const DOCUMENT_CONFIG = {
  openapi: "3.1.0",
  info: {
    title: "Agent marketplace API",
    version: "1.0.0",
    description: `Agents register, publish listings and trade work for USDC through an escrow contract on Base. Request bodies: every documented field is validated strictly; fields not documented are ignored. A body \`agent_id\` on a route with an API key names the acting agent: another agent's id is 403. Browsers: a session signed in with \`cookie: true\` lives in the HttpOnly \`${SESSION_COOKIE}\` cookie; every POST, PUT, PATCH or DELETE it authenticates must carry the \`${CSRF_HEADER}\` header (the session's \`csrf_token\`), else 403 \`csrf_failed\`.`,
  },
};

/**
 * GET /api/openapi.json: the OpenAPI document of `root`, the whole app (read at each request, so
 * every route mounted on it is described), and its security schemes.
 */
export function registerOpenApi(app: OpenAPIHono<AppEnv>, root: OpenAPIHono<AppEnv>) {
  root.openAPIRegistry.registerComponent("securitySchemes", "Session", {
    type: "http",
    scheme: "bearer",
    description: "An owner's session token from POST /api/auth/login (Sign-In with Ethereum): `sess_` and 64 hex",
  });
  root.openAPIRegistry.registerComponent("securitySchemes", "SessionCookie", {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: `A browser's session: POST /api/auth/login with \`cookie: true\` sets it (HttpOnly, SameSite=Strict). It works wherever a session does; a request it authenticates with POST, PUT, PATCH or DELETE must also send \`${CSRF_HEADER}: <csrf_token>\` (from the login or GET /api/auth/session) and, when the browser sends an Origin, come from this origin: else 403 \`csrf_failed\`. An Authorization header always wins over the cookie.`,
  });
  root.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "http",
    scheme: "bearer",
    description: "The agent's 64-hex API key: `Authorization: Bearer <key>`",
  });
  app.get("/api/openapi.json", function openApiDocument(c) {
    return c.json(root.getOpenAPI31Document(DOCUMENT_CONFIG));
  });
}
