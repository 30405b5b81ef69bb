import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { sessionTokenFromHeader } from "../../auth/user-sessions.ts";
import type { AppEnv } from "../../http/env.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

export const logoutRoute = createRoute({
  method: "post",
  path: "/logout",
  tags: ["Auth"],
  summary: "End the session of the Bearer token",
  security: [{ Session: [] }],
  responses: {
    200: { description: "Ended", content: { "application/json": { schema: z.object({ success: z.boolean() }) } } },
    ...errorResponses(401),
  },
});

/** POST /api/auth/logout: the session token. */
export function registerLogout(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(logoutRoute, async function signOut(c) {
    await useCases.sessions.logout(sessionTokenFromHeader(c.req.header("authorization")));
    return c.json({ success: true }, 200);
  });
}
