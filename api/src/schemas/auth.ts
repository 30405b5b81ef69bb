import { z } from "@hono/zod-openapi";
import type { Session as SessionOf } from "../domain/auth/sessions.ts";
import { Uuid } from "./common.ts";

/** An owner's session as /api/auth/login answers it (and /api/auth/session, without the token). */
export const Session = z
  .object({
    session_token: z.string().optional().openapi({
      description:
        "sess_ and 64 hex: send as Authorization: Bearer. Absent when the session was put in a cookie (login with cookie: true)",
    }),
    csrf_token: z.string().optional().openapi({
      description:
        "Only for a session in the am_session cookie (a browser): send it as the X-CSRF-Token header with every POST, PUT, PATCH or DELETE",
    }),
    address: z.string(),
    expires_at: z.string(),
    agents: z.array(z.object({ id: Uuid, name: z.string() })).openapi({ description: "The agents this address owns" }),
  })
  .openapi("UserSession");

export function sessionAnswer(session: SessionOf) {
  return { address: session.address, expires_at: session.expiresAt.toISOString(), agents: session.agents };
}
