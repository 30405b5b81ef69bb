import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { csrfTokenOf, SESSION_COOKIE, setSessionCookie } from "../../auth/cookie-session.ts";
import type { AppEnv } from "../../http/env.ts";
import { Session, sessionAnswer } from "../../schemas/auth.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const LoginBody = z
  .object({
    message: z.string().min(1).max(4_000).openapi({ description: "The EIP-4361 message" }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "must be 0x and hex"),
    cookie: z
      .boolean()
      .optional()
      .openapi({
        description: `For browsers: true puts the session in an HttpOnly ${SESSION_COOKIE} cookie instead of the answer, which then carries csrf_token (default false: a Bearer session_token)`,
      }),
  })
  .openapi("SiweLogin");

export const loginRoute = createRoute({
  method: "post",
  path: "/login",
  operationId: "login",
  tags: ["Auth"],
  summary: "Sign in with a signed EIP-4361 message; answers a session token, or sets the session cookie",
  description:
    "The message must name this host as its domain, this chain's id, and a nonce from GET /api/auth/nonce that has not been used.",
  security: [],
  request: { body: { required: true, content: { "application/json": { schema: LoginBody } } } },
  responses: {
    200: { description: "Signed in", content: { "application/json": { schema: Session } } },
    ...errorResponses(400, 401),
  },
});

/** POST /api/auth/login: public; the signed message is the credential. */
export function registerLogin(app: OpenAPIHono<AppEnv>, { useCases, config }: RouteDeps) {
  app.openapi(loginRoute, async function signIn(c) {
    const { message, signature, cookie } = c.req.valid("json");
    const host = new URL(c.req.url).host;
    const session = await useCases.sessions.login({ message, signature: signature as Hex, host });
    if (!cookie) return c.json({ session_token: session.token, ...sessionAnswer(session) }, 200);
    // A browser's session: the token goes only into the HttpOnly cookie, never to scripts.
    setSessionCookie(c, session.token, config);
    return c.json({ ...sessionAnswer(session), csrf_token: csrfTokenOf(session.token) }, 200);
  });
}
