import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { NONCE_MINUTES } from "../../domain/auth/sessions.ts";
import type { AppEnv } from "../../http/env.ts";
import type { RouteDeps } from "../route-deps.ts";

export const nonceRoute = createRoute({
  method: "get",
  path: "/nonce",
  operationId: "getSiweNonce",
  tags: ["Auth"],
  summary: "A nonce for a Sign-In with Ethereum message",
  responses: {
    200: {
      description: `Valid for ${NONCE_MINUTES} minutes, once`,
      content: { "application/json": { schema: z.object({ nonce: z.string(), expires_at: z.string() }) } },
    },
  },
});

/** GET /api/auth/nonce: public. */
export function registerNonce(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(nonceRoute, async function siweNonce(c) {
    const { nonce, expiresAt } = await useCases.sessions.nonce();
    return c.json({ nonce, expires_at: expiresAt.toISOString() }, 200);
  });
}
