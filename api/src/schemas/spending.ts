import { z } from "@hono/zod-openapi";
import { APPROVAL_STATES } from "../domain/wallet/approval-requests.ts";
import { SPEND_ACTIONS, SPEND_WINDOW_HOURS, type SpendAction } from "../domain/wallet/spending-caps.ts";
import { bodyWei, MAX_ESCROW_WEI, Uuid, Wei } from "./common.ts";
import { InsufficientBalance } from "./funding.ts";

/** Shapes of hosted agents' spending caps and of the moves that wait for the owner's approval. */

const DIGITS = /^\d{1,78}$/;

/** A cap in wei: a whole number from 0 to the largest escrow amount (2^128 - 1). */
const CapWei = bodyWei(
  Wei.refine((value) => !DIGITS.test(value) || BigInt(value) <= MAX_ESCROW_WEI, {
    message: "must be at most 2^128 - 1",
  }),
);

const nullableCap = (description: string) =>
  CapWei.nullable().openapi({
    anyOf: [
      { type: "string", pattern: "^\\d{1,78}$" },
      { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      { type: "null" },
    ],
    description: `${description}: USDC wei (a string of digits, or a JSON integer up to 2^53 - 1), at most 2^128 - 1; null for no cap`,
    example: "10000000",
  });

export const SetSpendingLimitsBody = z
  .object({
    per_purchase_wei: nullableCap("The most one move may spend"),
    per_day_wei: nullableCap(`The most the moves of any ${SPEND_WINDOW_HOURS} hours may spend together`),
    approval_above_wei: nullableCap(
      "A move the agent asks for above this waits for your approval (202); your own moves never do",
    ),
  })
  .openapi("SetSpendingLimits");

const weiOrNull = (description: string) => z.string().nullable().openapi({ description, example: "10000000" });

export const SpendingLimits = z
  .object({
    agent_id: Uuid,
    hosted: z.boolean().openapi({
      description: "Caps hold for hosted agents, whose moves the service signs; an external agent signs its own",
    }),
    per_purchase_wei: weiOrNull("The most one move may spend; null: no cap"),
    per_day_wei: weiOrNull(`The most the moves of any ${SPEND_WINDOW_HOURS} hours may spend; null: no cap`),
    approval_above_wei: weiOrNull("Moves the agent asks for above this wait for the owner's approval; null: never"),
    window_hours: z.literal(SPEND_WINDOW_HOURS),
    spent_24h_wei: z.string().openapi({
      description: `What the service signed for the agent in the last ${SPEND_WINDOW_HOURS} hours (buys, bounties, escrows, withdrawals to other addresses than the owner's, x402 payments it signed; reverted sends do not count)`,
      example: "4000000",
    }),
    remaining_24h_wei: weiOrNull("per_day_wei less spent_24h_wei (0 at least); null: no daily cap"),
    max_move_wei: weiOrNull("The most one move may spend now: the smaller of per_purchase_wei and remaining_24h_wei"),
    pending_approvals: z.number().int().openapi({ description: "Moves waiting for the owner's approval" }),
    updated_at: z.string().nullable().openapi({ description: "When the owner last set them; null: never" }),
  })
  .openapi("SpendingLimits");

export const SpendingApproval = z
  .object({
    id: Uuid,
    agent_id: Uuid,
    action: z.enum(SPEND_ACTIONS).openapi({
      description:
        "buy (a listing, at an accepted offer's price too), bounty (its reward), transaction (a direct escrow), withdrawal",
    }),
    summary: z.string().openapi({ example: 'Buy "Logo design" from Studio' }),
    amount_wei: z.string(),
    amount_usdc: z.string(),
    state: z.enum(APPROVAL_STATES).openapi({
      description:
        "pending (waiting for the owner), approved (carried out: see result), declined, expired (not decided within 24 hours), failed (approved, but refused when carried out: see failure)",
    }),
    request: z.record(z.string(), z.unknown()).openapi({ description: "The request it carries out, as validated" }),
    result: z
      .record(z.string(), z.unknown())
      .nullable()
      .openapi({ description: "Once carried out: transaction_id (or withdrawal_id, listing_id) and tx_hash" }),
    failure: z
      .object({ code: z.string(), error: z.string() })
      .nullable()
      .openapi({ description: "Why an approved move was not carried out" }),
    created_at: z.string(),
    expires_at: z.string(),
    decided_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .openapi("SpendingApproval");

/** The 202 of a money move that waits for the owner's approval. */
export const AwaitingApproval = z
  .object({
    state: z.literal("AWAITING_APPROVAL"),
    approval: SpendingApproval,
    message: z.string(),
  })
  .openapi("AwaitingApproval");

export const SpendingLimitRefusal = z
  .object({
    error: z.string(),
    code: z.literal("spending_limit"),
    limit: z.enum(["per_purchase", "per_day"]).openapi({ description: "The cap the move would pass" }),
    limit_wei: z.string(),
    amount_wei: z.string().openapi({ description: "What the move would spend" }),
    spent_wei: z.string().openapi({ description: `What the last ${SPEND_WINDOW_HOURS} hours spent` }),
    remaining_wei: z.string().openapi({ description: "The most one move may spend now" }),
    window_hours: z.literal(SPEND_WINDOW_HOURS),
    request_id: z.string().optional(),
  })
  .openapi("SpendingLimitRefusal");

/** An example of the 202: a move of 25 USDC that waits for the owner. */
function awaitingExample(action: SpendAction, summary: string, request: Record<string, unknown>) {
  return {
    state: "AWAITING_APPROVAL",
    approval: {
      id: "5d2a8c4e-1f3b-4e7a-9c6d-0b8e2f4a6c13",
      agent_id: "7c1e4b2a-9d3f-4a6e-8b5c-2f1d0e9a8b7c",
      action,
      summary,
      amount_wei: "25000000",
      amount_usdc: "25.00",
      state: "pending",
      request,
      result: null,
      failure: null,
      created_at: "2026-01-01T12:00:00.000Z",
      expires_at: "2026-01-02T12:00:00.000Z",
      decided_at: null,
      completed_at: null,
    },
    message:
      "Above the approval threshold your owner set: nothing was sent. Your owner is asked to approve 25.00 USDC within 24 hours; you are notified (approval.approved or approval.declined).",
  } satisfies z.infer<typeof AwaitingApproval>;
}

/**
 * The answers a hosted agent's money move adds: 202 when it waits for the owner's approval, 402
 * when the balance is short or a spending cap refuses it.
 */
export function cappedMoveResponses(
  what: string,
  example: { action: SpendAction; summary: string; request: Record<string, unknown> },
) {
  return {
    202: {
      description: `Above the owner's approval threshold: nothing was sent; the ${what} is carried out once the owner approves it (approval.approved or approval.declined is notified)`,
      content: {
        "application/json": {
          schema: AwaitingApproval,
          example: awaitingExample(example.action, example.summary, example.request),
        },
      },
    },
    402: {
      description:
        "The balance is short (insufficient_balance), or a spending cap the owner set refuses it (spending_limit)",
      content: { "application/json": { schema: z.union([InsufficientBalance, SpendingLimitRefusal]) } },
    },
  };
}
