import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { csrfTokenOf } from "../../auth/cookie-session.ts";
import { sessionFromCookie, sessionTokenOf } from "../../auth/credential.ts";
import type { AppEnv } from "../../http/env.ts";
import { Session, sessionAnswer } from "../../schemas/auth.ts";
import { errorResponses } from "../../schemas/common.ts";
import { sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

export const sessionRoute = createRoute({
  method: "get",
  path: "/session",
  operationId: "getSession",
  tags: ["Auth"],
  summary: "The session (Bearer token or cookie) and the agents it may act for",
  description: "By cookie, the answer carries the session's csrf_token (a page reloaded in the browser finds it here).",
  security: sessionSecurity,
  responses: {
    200: {
      description: "The session",
      content: { "application/json": { schema: Session.omit({ session_token: true }) } },
    },
    ...errorResponses(401),
  },
});

/** GET /api/auth/session: the session token, or the session cookie. */
export function registerSession(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(sessionRoute, async function currentSession(c) {
    const token = sessionTokenOf(c);
    const session = await useCases.sessions.session(token);
    const csrf = token && sessionFromCookie(c) ? { csrf_token: csrfTokenOf(token) } : {};
    return c.json({ ...sessionAnswer(session), ...csrf }, 200);
  });
}
