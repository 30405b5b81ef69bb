import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { generateSiweNonce, parseSiweMessage, verifySiweMessage } from "viem/siwe";
import {
  findSession,
  hashSessionToken,
  newSessionToken,
  ownedAgents,
  SESSION_HOURS,
  sessionTokenFromHeader,
} from "../auth/user-sessions.ts";
import { siweNonces, userSessions } from "../db/schema.ts";
import type { Deps } from "../deps.ts";
import { unauthorized } from "../domain/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError, validationHook } from "../http/errors.ts";
import { errorResponses, Uuid } from "../schemas/common.ts";

/*
 * User authentication for the owners of agents: Sign-In with Ethereum (EIP-4361). GET a nonce,
 * sign a SIWE message for this host and chain with it, POST it to /login: the answer is a session
 * token (Bearer) valid for SESSION_HOURS. A nonce is spent by the first login that carries it.
 */

const NONCE_MINUTES = 10;

const Session = z
  .object({
    session_token: z.string().openapi({ description: "sess_ and 64 hex: send as Authorization: Bearer" }),
    address: z.string(),
    expires_at: z.string(),
    agents: z.array(z.object({ id: Uuid, name: z.string() })).openapi({ description: "The agents this address owns" }),
  })
  .openapi("UserSession");

const LoginBody = z
  .object({
    message: z.string().min(1).max(4_000).openapi({ description: "The EIP-4361 message" }),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "must be 0x and hex"),
  })
  .openapi("SiweLogin");

const refused = (reason: string) => new ApiError(401, "unauthorized", `Sign-In with Ethereum refused: ${reason}`);

export function userAuthRoutes(deps: Deps) {
  const { db, chain } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/auth/nonce",
      tags: ["Auth"],
      summary: "A nonce for a Sign-In with Ethereum message",
      responses: {
        200: {
          description: `Valid for ${NONCE_MINUTES} minutes, once`,
          content: { "application/json": { schema: z.object({ nonce: z.string(), expires_at: z.string() }) } },
        },
      },
    }),
    async (c) => {
      const nonce = generateSiweNonce();
      const expiresAt = new Date(Date.now() + NONCE_MINUTES * 60_000);
      await db.insert(siweNonces).values({ nonce, expiresAt });
      return c.json({ nonce, expires_at: expiresAt.toISOString() }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/login",
      tags: ["Auth"],
      summary: "Sign in with a signed EIP-4361 message; answers a session token",
      description:
        "The message must name this host as its domain, this chain's id, and a nonce from GET /api/auth/nonce that has not been used.",
      request: { body: { required: true, content: { "application/json": { schema: LoginBody } } } },
      responses: {
        200: { description: "Signed in", content: { "application/json": { schema: Session } } },
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const { message, signature } = c.req.valid("json");
      const fields = parseSiweMessage(message);
      if (!fields.address || !fields.nonce || !fields.domain) throw refused("not an EIP-4361 message");
      const host = new URL(c.req.url).host;
      if (fields.domain !== host) throw refused(`the message is for ${fields.domain}, not ${host}`);
      if (fields.chainId !== chain.chainId) throw refused(`the message is for chain ${fields.chainId}`);
      // Signature, domain, nonce and the message's own time limits (expirationTime, notBefore).
      const valid = await verifySiweMessage(chain.publicClient, {
        message,
        signature: signature as Hex,
        domain: host,
        nonce: fields.nonce,
      }).catch(() => false);
      if (!valid) throw refused("the signature does not match the message, or the message has expired");
      const [spent] = await db
        .update(siweNonces)
        .set({ usedAt: new Date() })
        .where(and(eq(siweNonces.nonce, fields.nonce), isNull(siweNonces.usedAt), gt(siweNonces.expiresAt, sql`now()`)))
        .returning({ nonce: siweNonces.nonce });
      if (!spent) throw refused("unknown, expired or already used nonce");
      const address = fields.address.toLowerCase();
      const token = newSessionToken();
      const expiresAt = new Date(Date.now() + SESSION_HOURS * 3_600_000);
      await db.insert(userSessions).values({ tokenHash: hashSessionToken(token), address, expiresAt });
      return c.json(
        {
          session_token: token,
          address: fields.address,
          expires_at: expiresAt.toISOString(),
          agents: await ownedAgents(db, address),
        },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/auth/logout",
      tags: ["Auth"],
      summary: "End the session of the Bearer token",
      security: [{ Session: [] }],
      responses: {
        200: { description: "Ended", content: { "application/json": { schema: z.object({ success: z.boolean() }) } } },
        ...errorResponses(401),
      },
    }),
    async (c) => {
      const token = sessionTokenFromHeader(c.req.header("authorization"));
      if (!token) throw unauthorized();
      const ended = await db
        .update(userSessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(userSessions.tokenHash, hashSessionToken(token)), isNull(userSessions.revokedAt)))
        .returning({ id: userSessions.id });
      if (ended.length === 0) throw unauthorized();
      return c.json({ success: true }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/auth/session",
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
    }),
    async (c) => {
      const token = sessionTokenFromHeader(c.req.header("authorization"));
      const session = token ? await findSession(db, token) : undefined;
      if (!session) throw unauthorized();
      return c.json(
        {
          address: session.address,
          expires_at: session.expiresAt.toISOString(),
          agents: await ownedAgents(db, session.address),
        },
        200,
      );
    },
  );

  return app;
}
