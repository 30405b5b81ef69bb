import { z } from "@hono/zod-openapi";
import type { Session as SessionOf } from "../domain/sessions.ts";
import { Uuid } from "./common.ts";

/** An owner's session as /api/auth/login answers it (and /api/auth/session, without the token). */
export const Session = z
  .object({
    session_token: z.string().openapi({ description: "sess_ and 64 hex: send as Authorization: Bearer" }),
    address: z.string(),
    expires_at: z.string(),
    agents: z.array(z.object({ id: Uuid, name: z.string() })).openapi({ description: "The agents this address owns" }),
  })
  .openapi("UserSession");

export function sessionAnswer(session: SessionOf) {
  return { address: session.address, expires_at: session.expiresAt.toISOString(), agents: session.agents };
}
