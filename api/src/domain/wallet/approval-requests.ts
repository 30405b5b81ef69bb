import { and, eq, gt, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import type { ApprovalState } from "../../db/column-values.ts";
import { spendingApprovals } from "../../db/schema.ts";
import { notify } from "../../notifications/notify.ts";
import { formatUsdc } from "../shared/money.ts";
import type { CappedMove, MoveRequest, SpendAction } from "./spending-caps.ts";

export { APPROVAL_STATES, type ApprovalState } from "../../db/column-values.ts";

/*
 * The moves that wait for an owner's approval (app.spending_approvals): a hosted agent asked for
 * one above its owner's `approval_above_wei`, within its caps. It is recorded with the request to
 * carry out and the agent is notified (`approval.requested`: its stream, its webhook and its
 * owner's page); the owner approves it (carried out once, domain/owners/spending-approvals.ts) or
 * declines it within APPROVAL_LIFETIME_HOURS, after which it reads as expired.
 */

/** How long an approval waits for its owner. */
export const APPROVAL_LIFETIME_HOURS = 24;

type ApprovalRow = typeof spendingApprovals.$inferSelect;

/** An approval as the API answers it. */
export interface ApprovalView {
  id: string;
  agent_id: string;
  action: SpendAction;
  summary: string;
  amount_wei: string;
  amount_usdc: string;
  state: ApprovalState;
  /** The request the approval carries out, as the agent sent it (validated). */
  request: Record<string, unknown>;
  /**
   * Once carried out: its transaction_id (or withdrawal_id) and tx_hash; for an x402 payment, the
   * signed payment (payment_signature, to send as the PAYMENT-SIGNATURE header) and until when it holds.
   */
  result: Record<string, unknown> | null;
  /** Why an approved move was not carried out: the refusal's code and words. */
  failure: { code: string; error: string } | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  completed_at: string | null;
}

/** A move the service did not sign yet: it waits for the owner's approval (202). */
export interface AwaitingApproval {
  state: "AWAITING_APPROVAL";
  approval: ApprovalView;
  message: string;
}

/** The state a row reads as: a pending one past its expiry is expired, whether or not recorded yet. */
export function stateOf(row: Pick<ApprovalRow, "state" | "expiresAt">, now = new Date()): ApprovalState {
  return row.state === "pending" && row.expiresAt.getTime() <= now.getTime() ? "expired" : row.state;
}

/** {@link stateOf} in SQL, for filters. */
export const stateSql = sql<ApprovalState>`(CASE WHEN ${spendingApprovals.state} = 'pending' AND ${spendingApprovals.expiresAt} <= now() THEN 'expired' ELSE ${spendingApprovals.state} END)`;

function failureOf(value: Record<string, unknown> | null): ApprovalView["failure"] {
  if (!value) return null;
  return { code: String(value.code ?? "failed"), error: String(value.error ?? "") };
}

export function approvalView(row: ApprovalRow): ApprovalView {
  return {
    id: row.id,
    agent_id: row.agentId,
    action: row.action,
    summary: row.summary,
    amount_wei: row.amountWei,
    amount_usdc: formatUsdc(row.amountWei),
    state: stateOf(row),
    request: row.request,
    result: row.result,
    failure: failureOf(row.failure),
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    decided_at: row.decidedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

/** The 202 answer of a move that waits for `approval`. */
export function awaitingApproval(approval: ApprovalView): AwaitingApproval {
  return {
    state: "AWAITING_APPROVAL",
    approval,
    message: `Above the approval threshold your owner set: nothing was sent. Your owner is asked to approve ${approval.amount_usdc} USDC (${approval.summary}) within ${APPROVAL_LIFETIME_HOURS} hours; you are notified (approval.approved or approval.declined).`,
  };
}

type RequestOf<A extends SpendAction> = Extract<MoveRequest, { action: A }>["request"];

/** The request of a stored approval, by its action (written by {@link requestApproval} only). */
export function moveRequestOf(row: Pick<ApprovalRow, "action" | "request">): MoveRequest {
  switch (row.action) {
    case "buy":
      return { action: "buy", request: row.request as RequestOf<"buy"> };
    case "bounty":
      return { action: "bounty", request: row.request as RequestOf<"bounty"> };
    case "transaction":
      return { action: "transaction", request: row.request as RequestOf<"transaction"> };
    case "withdrawal":
      return { action: "withdrawal", request: row.request as RequestOf<"withdrawal"> };
    case "x402":
      return { action: "x402", request: row.request as RequestOf<"x402"> };
  }
}

type Writer = Pick<Database, "insert" | "select" | "execute">;

/**
 * Records that `move` of `amountWei` waits for its owner, in the caller's database transaction
 * (the one holding the wallet's lock), and notifies the agent. The same request of the agent
 * still pending answers that approval again: a retried request asks the owner once.
 */
export async function requestApproval(tx: Writer, move: CappedMove, amountWei: bigint): Promise<ApprovalView> {
  const request: Record<string, unknown> = move.request;
  const [already] = await tx
    .select()
    .from(spendingApprovals)
    .where(
      and(
        eq(spendingApprovals.agentId, move.agentId),
        eq(spendingApprovals.state, "pending"),
        gt(spendingApprovals.expiresAt, sql`now()`),
        eq(spendingApprovals.action, move.action),
        eq(spendingApprovals.amountWei, amountWei.toString()),
        sql`${spendingApprovals.request} = ${JSON.stringify(request)}::jsonb`,
      ),
    )
    .limit(1);
  if (already) return approvalView(already);
  const [created] = await tx
    .insert(spendingApprovals)
    .values({
      agentId: move.agentId,
      ownerAddress: move.ownerAddress,
      action: move.action,
      request,
      summary: move.summary,
      amountWei: amountWei.toString(),
      expiresAt: sql`now() + ${`${APPROVAL_LIFETIME_HOURS} hours`}::interval`,
    })
    .returning();
  if (!created) throw new Error("insert returned no row");
  const view = approvalView(created);
  await notify(tx, [
    {
      agentId: move.agentId,
      kind: "approval.requested",
      payload: {
        approval_id: view.id,
        action: view.action,
        summary: view.summary,
        amount_wei: view.amount_wei,
        amount_usdc: view.amount_usdc,
        expires_at: view.expires_at,
      },
      dedupeKey: `approval:${view.id}:requested`,
    },
  ]);
  return view;
}
