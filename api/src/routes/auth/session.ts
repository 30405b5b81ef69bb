import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { sessionTokenFromHeader } from "../../auth/user-sessions.ts";
import type { AppEnv } from "../../http/env.ts";
import { Session, sessionAnswer } from "../../schemas/auth.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

export const sessionRoute = createRoute({
  method: "get",
  path: "/session",
  tags: ["Auth"],
  summary: "The session of the Bearer token and the agents it may act for",
  security: [{ Session: [] }],
  responses: {
    200: {
      description: "The session",
      content: { "application/json": { schema: Session.omit({ session_token: true }) } },
    },
    ...errorResponses(401),
  },
});

/** GET /api/auth/session: the session token. */
export function registerSession(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(sessionRoute, async function currentSession(c) {
    const session = await useCases.sessions.session(sessionTokenFromHeader(c.req.header("authorization")));
    return c.json(sessionAnswer(session), 200);
  });
}
