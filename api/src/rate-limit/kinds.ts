/**
 * The budgets a request can be refused by: a caller's (its agent's key or an owner's session), a
 * client IP's (requests without a credential), registrations per IP, messages per agent. A module
 * of its own: the request's context (http/env.ts) names the one that refused it.
 */
export const RATE_LIMIT_KINDS = ["per_caller", "per_ip", "registrations", "messages"] as const;
export type RateLimitKind = (typeof RATE_LIMIT_KINDS)[number];
