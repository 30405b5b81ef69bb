import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { clearSessionCookie } from "../../auth/cookie-session.ts";
import { sessionTokenOf } from "../../auth/credential.ts";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses } from "../../schemas/common.ts";
import { sessionSecurity } from "../../schemas/owners.ts";
import type { RouteDeps } from "../route-deps.ts";

export const logoutRoute = createRoute({
  method: "post",
  path: "/logout",
  operationId: "logout",
  tags: ["Auth"],
  summary: "End the session (Bearer token or cookie); clears the cookie",
  security: sessionSecurity,
  responses: {
    200: { description: "Ended", content: { "application/json": { schema: z.object({ success: z.boolean() }) } } },
    ...errorResponses(401, 403),
  },
});

/** POST /api/auth/logout: the session token, or the session cookie (with its CSRF header). */
export function registerLogout(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(logoutRoute, async function signOut(c) {
    // Cleared even when the session had already ended: the browser should not keep a dead cookie.
    clearSessionCookie(c);
    await useCases.sessions.logout(sessionTokenOf(c));
    return c.json({ success: true }, 200);
  });
}
