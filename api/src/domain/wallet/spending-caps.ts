import { sql } from "drizzle-orm";
import type { DbTransaction } from "../../db/client.ts";
import { DomainError } from "../shared/errors.ts";
import type { ListingCategory } from "../shared/listing-terms.ts";
import { formatUsdc } from "../shared/money.ts";

export { SPEND_ACTIONS, type SpendAction } from "../../db/column-values.ts";

/*
 * An owner's spending caps on a hosted agent: the most one move may spend (`per_purchase_wei`),
 * the most the moves of any 24 hours may spend together (`per_day_wei`), and the amount above
 * which a move the agent asks for waits for the owner's approval (`approval_above_wei`). The
 * service holds a hosted agent's key, so these hold whatever the agent is talked into: every move
 * the service signs for it (a purchase, at an offer's price too, a bounty's reward, a direct
 * escrow, a withdrawal to any address but the owner's, an x402 payment it signs for another
 * service: domain/wallet/x402-signing.ts) is checked under the wallet's lock, the one
 * its balance reservation takes (balance-reservations.ts), so of concurrent moves (a buy and a
 * withdrawal, or fifty buys) those that would pass a cap together are refused, never sent.
 *
 * A day is the last 24 hours: the moves recorded in app.agent_spends whose send was not reverted
 * or dropped, and those not yet signed for at most 5 minutes (a move that fails before it is
 * signed releases its row at once). An x402 payment counts from the moment it is signed, used or
 * not: its payee may settle it whenever it likes before it expires, and we never learn whether.
 */

/** The rolling window of `per_day_wei`. */
export const SPEND_WINDOW_HOURS = 24;

/** How long a move not yet tied to a signed send counts (as a balance reservation does). */
export const UNSIGNED_SPEND_LIFETIME = "5 minutes";

/** An agent's caps, in wei; null: no cap. */
export interface SpendingLimits {
  perPurchaseWei: bigint | null;
  perDayWei: bigint | null;
  approvalAboveWei: bigint | null;
}

export const NO_LIMITS: SpendingLimits = { perPurchaseWei: null, perDayWei: null, approvalAboveWei: null };

/** Whether any cap is set. */
export const hasLimits = (limits: SpendingLimits): boolean =>
  limits.perPurchaseWei !== null || limits.perDayWei !== null || limits.approvalAboveWei !== null;

/**
 * Who asked for a move: the agent's own key (caps, and the owner's approval above its threshold),
 * its owner's session (caps only: the owner asking is the approval), or an approval the owner gave
 * being carried out (caps again, at that moment).
 */
export type SpendOrigin = { kind: "agent" } | { kind: "owner" } | { kind: "approval"; approvalId: string };

/** The requests an approval carries out, as the routes validated them (stored as JSON). */
export type BuyRequest = {
  listing_id: string;
  offer_id?: string;
  deadline_hours: number;
  /** The price the approval is for: a purchase that would charge another is refused then. */
  expected_price_wei: string;
};
export type BountyRequest = {
  title: string;
  description: string;
  price_wei: string;
  category: ListingCategory;
  accepts_proposals?: boolean;
  deadline_hours?: number;
  expires_in_hours?: number;
};
export type TransactionRequest = {
  seller_agent_id: string;
  amount_wei: string;
  description: string;
  deadline_hours: number;
};
export type WithdrawalRequest = { destination_address: string; amount_wei: string };
/** An x402 payment to sign: the payee's PAYMENT-REQUIRED (x402 v2), as decoded and validated. */
export type X402Request = { payment_required: Record<string, unknown> };

export type MoveRequest =
  | { action: "buy"; request: BuyRequest }
  | { action: "bounty"; request: BountyRequest }
  | { action: "transaction"; request: TransactionRequest }
  | { action: "withdrawal"; request: WithdrawalRequest }
  | { action: "x402"; request: X402Request };

/** A move as its use case asks for it: the request, in words, and who asked. */
export type MoveAsk = MoveRequest & {
  /** What it is, in words, for the owner. */
  summary: string;
  origin: SpendOrigin;
};

/** A move the service is about to sign for a hosted agent, as its caps see it. */
export type CappedMove = MoveAsk & {
  agentId: string;
  /** The agent's owner (lowercase), who approves what waits. */
  ownerAddress: string | null;
};

/** `ask` as the move of `agent`. */
export const cappedMoveOf = (agent: { id: string; ownerAddress: string | null }, ask: MoveAsk): CappedMove => ({
  ...ask,
  agentId: agent.id,
  ownerAddress: agent.ownerAddress,
});

/** Which cap refused a move. */
export type CapName = "per_purchase" | "per_day";

/**
 * A move over one of its agent's caps (402 `spending_limit`): nothing was reserved or sent.
 * Says which cap, its amount, what the last 24 hours spent and what remains, in wei strings.
 */
export class SpendingLimitError extends DomainError {
  constructor(cap: CapName, limits: SpendingLimits, spentWei: bigint, amountWei: bigint) {
    const limitWei = (cap === "per_purchase" ? limits.perPurchaseWei : limits.perDayWei) ?? 0n;
    const remaining = largestMove(limits, spentWei) ?? 0n;
    const message =
      cap === "per_purchase"
        ? `Over the per-purchase spending limit: this move spends ${formatUsdc(amountWei)} USDC, one move may spend at most ${formatUsdc(limitWei)} USDC. Nothing was sent; the agent's owner sets the limits`
        : `Over the per-day spending limit: this move spends ${formatUsdc(amountWei)} USDC, the last ${SPEND_WINDOW_HOURS} hours spent ${formatUsdc(spentWei)} USDC of ${formatUsdc(limitWei)} USDC, ${formatUsdc(remaining)} USDC remain. Nothing was sent; the agent's owner sets the limits`;
    super(message, "spending_limit", {
      limit: cap,
      limit_wei: limitWei.toString(),
      amount_wei: amountWei.toString(),
      spent_wei: spentWei.toString(),
      remaining_wei: remaining.toString(),
      window_hours: SPEND_WINDOW_HOURS,
    });
  }
}

/** What the day's cap leaves after `spentWei` (never below 0); null: no daily cap. */
export function dayLeft(limits: SpendingLimits, spentWei: bigint): bigint | null {
  if (limits.perDayWei === null) return null;
  return limits.perDayWei > spentWei ? limits.perDayWei - spentWei : 0n;
}

/** What one move may spend now: the smaller of the per-purchase cap and what the day leaves; null: no cap. */
export function largestMove(limits: SpendingLimits, spentWei: bigint): bigint | null {
  const left = dayLeft(limits, spentWei);
  if (limits.perPurchaseWei === null) return left;
  if (left === null) return limits.perPurchaseWei;
  // bigints: Math.min takes numbers only.
  if (limits.perPurchaseWei < left) return limits.perPurchaseWei;
  return left;
}

/** The cap a move of `amountWei` would pass, after `spentWei` in the window; undefined when it fits. */
export function capExceeded(limits: SpendingLimits, spentWei: bigint, amountWei: bigint): CapName | undefined {
  if (limits.perPurchaseWei !== null && amountWei > limits.perPurchaseWei) return "per_purchase";
  if (limits.perDayWei !== null && spentWei + amountWei > limits.perDayWei) return "per_day";
  return undefined;
}

/** Whether a move fitting the caps waits for the owner: the agent asked, above the threshold. */
export function needsApproval(limits: SpendingLimits, origin: SpendOrigin, amountWei: bigint): boolean {
  return origin.kind === "agent" && limits.approvalAboveWei !== null && amountWei > limits.approvalAboveWei;
}

type Reader = Pick<DbTransaction, "execute">;

/**
 * What the service signed for `agentId` in the last 24 hours (see the module's comment), in one
 * statement. Read under the wallet's lock, it counts every move of the agent before this one.
 */
export async function spentInWindow(db: Reader, agentId: string): Promise<bigint> {
  const { rows } = await db.execute<{ spent: string }>(sql`
    SELECT coalesce(sum(s.amount_wei), 0)::text AS spent
    FROM app.agent_spends s
    LEFT JOIN app.relayed_transactions r ON r.tx_hash = s.tx_hash
    WHERE s.agent_id = ${agentId}
      AND s.created_at > now() - ${`${SPEND_WINDOW_HOURS} hours`}::interval
      AND CASE WHEN s.action = 'x402' THEN true
               WHEN s.tx_hash IS NULL THEN s.created_at > now() - ${UNSIGNED_SPEND_LIFETIME}::interval
               ELSE r.status IS DISTINCT FROM 'reverted' AND r.status IS DISTINCT FROM 'dropped' END`);
  return BigInt(rows[0]?.spent ?? "0");
}

const weiOrNull = (value: string | null | undefined): bigint | null =>
  value === null || value === undefined ? null : BigInt(value);

/**
 * Takes the wallet's lock (`lockKey`, balance-reservations.ts) and reads the agent's caps in the
 * same statement: a move of an agent without caps costs no round trip more than its reservation.
 */
export async function lockAndReadLimits(tx: Reader, lockKey: string, agentId: string): Promise<SpendingLimits> {
  const { rows } = await tx.execute<{
    per_purchase_wei: string | null;
    per_day_wei: string | null;
    approval_above_wei: string | null;
  }>(sql`
    SELECT l.per_purchase_wei::text, l.per_day_wei::text, l.approval_above_wei::text
    FROM (SELECT pg_advisory_xact_lock(hashtext(${lockKey}))) AS locked
    LEFT JOIN app.spending_limits l ON l.agent_id = ${agentId}`);
  const row = rows[0];
  return {
    perPurchaseWei: weiOrNull(row?.per_purchase_wei),
    perDayWei: weiOrNull(row?.per_day_wei),
    approvalAboveWei: weiOrNull(row?.approval_above_wei),
  };
}

/**
 * The verdict on `move` of `amountWei` under its caps, taken under the wallet's lock: 402
 * `spending_limit` (thrown) over a cap, "approval" when it waits for the owner, else "move".
 */
export async function judgeMove(
  tx: Reader,
  move: CappedMove,
  limits: SpendingLimits,
  amountWei: bigint,
): Promise<"move" | "approval"> {
  if (limits.perPurchaseWei !== null || limits.perDayWei !== null) {
    const spent = await spentInWindow(tx, move.agentId);
    const cap = capExceeded(limits, spent, amountWei);
    if (cap) throw new SpendingLimitError(cap, limits, spent, amountWei);
  }
  return needsApproval(limits, move.origin, amountWei) ? "approval" : "move";
}
