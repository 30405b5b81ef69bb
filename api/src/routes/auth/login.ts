import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import type { AppEnv } from "../../http/env.ts";
import { Session, sessionAnswer } from "../../schemas/auth.ts";
import { errorResponses } from "../../schemas/common.ts";
import type { RouteDeps } from "../route-deps.ts";

const LoginBody = z
  .object({
    message: z.string().min(1).max(4_000).openapi({ description: "The EIP-4361 message" }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "must be 0x and hex"),
  })
  .openapi("SiweLogin");

export const loginRoute = createRoute({
  method: "post",
  path: "/login",
  tags: ["Auth"],
  summary: "Sign in with a signed EIP-4361 message; answers a session token",
  description:
    "The message must name this host as its domain, this chain's id, and a nonce from GET /api/auth/nonce that has not been used.",
  request: { body: { required: true, content: { "application/json": { schema: LoginBody } } } },
  responses: {
    200: { description: "Signed in", content: { "application/json": { schema: Session } } },
    ...errorResponses(400, 401),
  },
});

/** POST /api/auth/login: public; the signed message is the credential. */
export function registerLogin(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(loginRoute, async function signIn(c) {
    const { message, signature } = c.req.valid("json");
    const host = new URL(c.req.url).host;
    const session = await useCases.sessions.login({ message, signature: signature as Hex, host });
    return c.json({ session_token: session.token, ...sessionAnswer(session) }, 200);
  });
}
