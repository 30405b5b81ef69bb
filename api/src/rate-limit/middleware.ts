import { isIPv6 } from "node:net";
import type { Context, MiddlewareHandler } from "hono";
import { apiKeyHashOf, sessionFromCookie, sessionTokenOf } from "../auth/credential.ts";
import { receiptTokenOf, requestReceipt } from "../auth/receipt-tokens.ts";
import { requestSession } from "../auth/user-sessions.ts";
import type { Database } from "../db/client.ts";
import { unauthorized } from "../domain/shared/errors.ts";
import type { AppEnv } from "../http/env.ts";
import { ApiError } from "../http/errors.ts";
import type { KeyHolders } from "./key-holders.ts";
import type { RateLimitKind } from "./kinds.ts";
import type { RateLimitStore } from "./store.ts";

const MINUTE_MS = 60_000;

export interface RateLimitRule {
  /** Names the limit in its key and its error ("requests", "registrations"). */
  name: string;
  /** Which budget this is, as a refusal is counted (/metrics). */
  kind: RateLimitKind;
  limit: number;
  windowMs: number;
  /** Whose requests these are (an agent, a session, a client IP). */
  keyOf: (c: Context<AppEnv>) => string;
}

/**
 * Spends one request of `subject`'s budget under `rule`; past the limit answers 429 with
 * `Retry-After`. Every answer carries the IETF draft `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` headers (of the last budget the request spent).
 */
export async function spendBudget(
  c: Context<AppEnv>,
  store: RateLimitStore,
  rule: Omit<RateLimitRule, "keyOf">,
  subject: string,
): Promise<void> {
  const { allowed, remaining, resetAt } = await store.take(`${rule.name}:${subject}`, rule.limit, rule.windowMs);
  const resetSeconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
  c.header("RateLimit-Limit", String(rule.limit));
  c.header("RateLimit-Remaining", String(remaining));
  c.header("RateLimit-Reset", String(resetSeconds));
  if (!allowed) {
    c.header("Retry-After", String(resetSeconds));
    // Read by the request metrics once the answer is made (metrics/request-metrics.ts).
    c.set("rateLimited", rule.kind);
    throw new ApiError("rate_limited", `Too many ${rule.name}: at most ${rule.limit} per ${rule.windowMs / 1000} s`, {
      retry_after_seconds: resetSeconds,
    });
  }
}

/** Middleware spending one request of `rule`'s budget for the subject it names. */
export function rateLimit(store: RateLimitStore, rule: RateLimitRule): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await spendBudget(c, store, rule, rule.keyOf(c));
    await next();
  };
}

/**
 * The budget key of a client address: an IPv4 address as is, an IPv6 address by its /64 (one
 * subscriber's network: its addresses are free for the taking, so each does not get a budget).
 */
export function ipBudgetKey(address: string): string {
  if (!isIPv6(address)) return address;
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1];
  if (mapped) return mapped;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Marks the requests /mcp's tools make to this app in process: the /mcp request paid for them. */
export const IN_PROCESS_CALL = Symbol("in-process call");

/** Whether the request is one /mcp's tools made to this app in process (see IN_PROCESS_CALL). */
export function isInProcessCall(c: Context): boolean {
  return (c.env as Record<symbol, unknown> | undefined)?.[IN_PROCESS_CALL] === true;
}

/**
 * The request budget (100/min by default, the spec's), one per caller whatever credential it uses:
 * - an agent's API key spends its agent's budget (so rotating the key starts no fresh one), and an
 *   owner's session acting for the agent spends it too (auth/require-agent.ts, `agentBudget`);
 * - an owner's session spends a budget of its own;
 * - an x402 payment's receipt token spends its buyer's budget (an unknown one its IP's, and 401);
 * - a request without a credential spends its IP's (wider) budget;
 * - a key nobody holds (unknown or revoked) or a session token that is not live spends its IP's
 *   budget and is answered 401: forged credentials open no budget of their own and leave no row
 *   (a browser's cookie of an ended session spends its IP's budget and goes on as anonymous).
 * A call /mcp made in process is not counted again.
 */
export function requestBudget(
  store: RateLimitStore,
  options: {
    db: Database;
    perKeyPerMinute: number;
    perIpPerMinute: number;
    ipOf: (c: Context<AppEnv>) => string;
    keyHolders: Pick<KeyHolders, "find">;
  },
): MiddlewareHandler<AppEnv> {
  const perCaller = {
    name: "requests",
    kind: "per_caller",
    limit: options.perKeyPerMinute,
    windowMs: MINUTE_MS,
  } as const;
  const perIp = { name: "requests", kind: "per_ip", limit: options.perIpPerMinute, windowMs: MINUTE_MS } as const;
  const spendIp = (c: Context<AppEnv>) => spendBudget(c, store, perIp, `ip:${ipBudgetKey(options.ipOf(c))}`);
  return async (c, next) => {
    if (isInProcessCall(c)) return next();
    const token = sessionTokenOf(c);
    if (token) {
      const session = await requestSession(c, options.db, token);
      if (!session) {
        await spendIp(c);
        // A browser's cookie of an ended session authenticates nothing: the request goes on as
        // anonymous (signing in again is never blocked), and the guards refuse what needs a session.
        if (sessionFromCookie(c)) return next();
        throw unauthorized("This session has ended or was never issued: sign in again");
      }
      await spendBudget(c, store, perCaller, `session:${session.id}`);
      return next();
    }
    const receiptToken = receiptTokenOf(c);
    if (receiptToken) {
      // A receipt token spends its buyer's budget, as a key spends its agent's; an unknown one the IP's.
      const holder = await requestReceipt(c, options.db, receiptToken);
      if (!holder) {
        await spendIp(c);
        throw unauthorized("This receipt token is not valid");
      }
      await spendBudget(c, store, perCaller, `agent:${holder.buyer.id}`);
      return next();
    }
    const keyHash = apiKeyHashOf(c);
    if (!keyHash) {
      await spendIp(c);
      return next();
    }
    const holder = await options.keyHolders.find(keyHash);
    if (!holder) {
      await spendIp(c);
      throw unauthorized("This API key is not valid (unknown or revoked)");
    }
    const subject = holder === "arbiter" ? "arbiter" : `agent:${holder.agentId}`;
    await spendBudget(c, store, perCaller, subject);
    return next();
  };
}

/** Spends an agent's request budget for an owner's session acting for it (see requestBudget). */
export function agentBudget(store: RateLimitStore, perMinute: number) {
  const rule = { name: "requests", kind: "per_caller", limit: perMinute, windowMs: MINUTE_MS } as const;
  return (c: Context<AppEnv>, agentId: string) => spendBudget(c, store, rule, `agent:${agentId}`);
}
