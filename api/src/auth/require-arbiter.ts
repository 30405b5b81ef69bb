import { and, eq, isNull } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { Address } from "viem";
import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import { apiKeys } from "../db/schema.ts";
import { forbidden, unauthorized } from "../domain/shared/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { apiKeyHashOf, sessionTokenOf } from "./credential.ts";
import { requestSession } from "./user-sessions.ts";

/*
 * The arbiter is whoever holds the arbiter's key (`config.arbiter`), or a Sign-In with Ethereum
 * session of the escrow's on-chain arbiter address. Without a configured arbiter nobody is.
 */

export interface ArbiterCheck {
  db: Database;
  config: Pick<Config, "arbiter">;
  /** The escrow's arbiter address, as the chain says. */
  arbiterAddress: () => Promise<Address>;
}

/** Who the request's credential is: the arbiter, someone else who is signed in or keyed, or nobody. */
export async function arbiterStanding(
  c: Context<AppEnv>,
  { db, config, arbiterAddress }: ArbiterCheck,
): Promise<"arbiter" | "other" | "none"> {
  const keyHash = apiKeyHashOf(c);
  if (keyHash) {
    if (config.arbiter && keyHash === config.arbiter.apiKeyHash) return "arbiter";
    const [live] = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
      .limit(1);
    return live ? "other" : "none";
  }
  const token = sessionTokenOf(c);
  const session = token ? await requestSession(c, db, token) : undefined;
  if (!session) return "none";
  if (!config.arbiter) return "other";
  return session.address === (await arbiterAddress()).toLowerCase() ? "arbiter" : "other";
}

/**
 * The arbiter's desk: the arbiter's key or session, else 403 for any other credential (an agent's
 * key, another person's session: the desk is not theirs) and 401 for none (or a key nobody holds).
 */
export function requireArbiter(check: ArbiterCheck): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const standing = await arbiterStanding(c, check);
    if (standing === "none") throw unauthorized("The arbiter's desk takes the arbiter's key or session");
    if (standing === "other") throw forbidden("Only the arbiter works the dispute desk");
    c.set("arbiter", true);
    await next();
  };
}
