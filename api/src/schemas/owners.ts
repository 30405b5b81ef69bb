import { z } from "@hono/zod-openapi";
import type { ApiKeyRecord, OwnedAgentOverview } from "../domain/owners/owners.ts";
import { balanceAnswer } from "../domain/shared/money.ts";
import { DirectoryAgent } from "./agents.ts";
import { BalanceFields, Uuid } from "./common.ts";

/** Shapes of the owners' routes (/api/owner): an owner's agents and their API keys. */

/**
 * The owners' routes take a Sign-In with Ethereum session: its Bearer token (`sess_…`, programs) or
 * its cookie (browsers, with the CSRF header on writes).
 */
export const sessionSecurity: Record<string, string[]>[] = [{ Session: [] }, { SessionCookie: [] }];

export const OwnedAgent = DirectoryAgent.extend({
  hosted: z.boolean(),
  is_paused: z.boolean(),
  ...BalanceFields,
  live_keys: z.number().int().openapi({ description: "API keys not revoked" }),
  unread_notifications: z.number().int(),
}).openapi("OwnedAgent");

export function ownedAgentAnswer(overview: OwnedAgentOverview): z.infer<typeof OwnedAgent> {
  return {
    ...overview.summary,
    hosted: overview.hosted,
    is_paused: overview.isPaused,
    ...balanceAnswer(overview.balances),
    live_keys: overview.liveKeys,
    unread_notifications: overview.unreadNotifications,
  };
}

export const ApiKeyListed = z
  .object({
    id: Uuid,
    prefix: z.string().nullable().openapi({ description: "The key's first 8 hex characters (null for older keys)" }),
    created_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: "To the minute" }),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKeyListed");

export function apiKeyAnswer(key: ApiKeyRecord): z.infer<typeof ApiKeyListed> {
  return {
    id: key.id,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
