import { and, desc, eq, gt, isNotNull, type SQL, sql } from "drizzle-orm";
import { getAddress } from "viem";
import { ownedBy } from "../../auth/user-sessions.ts";
import type { Database } from "../../db/client.ts";
import { agentSpends, agents, spendingApprovals } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { notify } from "../../notifications/notify.ts";
import type { Agent } from "../agents/agents.ts";
import type { ListingUseCases } from "../listings/listings.ts";
import type { PurchaseUseCases } from "../listings/purchases.ts";
import { keysetPage, olderThanCursor, timestampPosition } from "../shared/cursor.ts";
import { ConflictError, DomainError, forbidden, notFound, TransactionRevertedError } from "../shared/errors.ts";
import { isUuid } from "../shared/ids.ts";
import type { TransactionFunding } from "../transactions/transaction-funding.ts";
import {
  type ApprovalState,
  type ApprovalView,
  approvalView,
  moveRequestOf,
  stateOf,
  stateSql,
} from "../wallet/approval-requests.ts";
import type { SpendOrigin } from "../wallet/spending-caps.ts";
import type { WalletUseCases } from "../wallet/wallet.ts";
import type { X402Signing } from "../wallet/x402-signing.ts";
import { ownedActiveAgent } from "./owners.ts";

/*
 * An owner's decisions on the moves its hosted agents asked for above the approval threshold
 * (domain/wallet/approval-requests.ts records them). Approving claims the approval in one
 * statement (pending, not expired, the session's agent), so of concurrent approvals one carries
 * the move out: the agent's use case runs again with the request as validated, and the caps are
 * judged again at that moment. Its outcome is recorded on the approval: the result (transaction
 * or withdrawal, tx_hash), or, when nothing was sent, the refusal (failed). Declining moves nothing.
 */

type ApprovalRow = typeof spendingApprovals.$inferSelect;

/** The moves an approval carries out: the agents' own use cases. */
export interface ApprovedMoves {
  purchases: Pick<PurchaseUseCases, "buy">;
  listings: Pick<ListingUseCases, "create">;
  transactionFunding: Pick<TransactionFunding, "create">;
  wallet: Pick<WalletUseCases, "withdraw">;
  x402Signing: Pick<X402Signing, "sign">;
}

export interface ListApprovalsInput {
  state?: ApprovalState;
  agentId?: string;
  limit: number;
  cursor?: string;
}

/** An approval that was decided already or expired: 409 `approval_closed`, nothing moved. */
export class ApprovalClosedError extends ConflictError {
  constructor(approval: ApprovalView) {
    super(
      `This approval is ${approval.state}: only a pending approval is approved or declined`,
      { approval_id: approval.id, state: approval.state },
      "approval_closed",
    );
  }
}

/**
 * The approved move was refused when carried out, and nothing was sent: the refusal's own code
 * (402 `spending_limit`, 402 `insufficient_balance`, 409 `price_changed`, ...), with the approval,
 * now failed, in its details.
 */
export class ApprovedMoveRefusedError extends DomainError {
  constructor(refusal: DomainError, approval: ApprovalView) {
    super(`The approved move was not carried out: ${refusal.message}`, refusal.code, {
      ...refusal.details,
      approval,
    });
  }
}

/** What an approval's agent is told of its owner's decision and its outcome. */
export type DecisionKind = "approval.approved" | "approval.declined" | "approval.failed";

/**
 * Notifies the agent of `approval` its decision `kind`, in the caller's database transaction:
 * once per approval and kind (its dedupe key), whoever records it (the approval, or the keeper's
 * repair of an interrupted one, interrupted-approvals.ts).
 */
export async function notifyDecision(
  tx: Pick<Database, "insert" | "select" | "execute">,
  approval: ApprovalView,
  kind: DecisionKind,
) {
  await notify(tx, [
    {
      agentId: approval.agent_id,
      kind,
      payload: {
        approval_id: approval.id,
        action: approval.action,
        summary: approval.summary,
        amount_wei: approval.amount_wei,
        amount_usdc: approval.amount_usdc,
        ...(approval.result && { result: approval.result }),
        ...(approval.failure && { code: approval.failure.code, error: approval.failure.error }),
      },
      dedupeKey: `approval:${approval.id}:${kind}`,
    },
  ]);
}

export function spendingApprovalUseCases(deps: Pick<Deps, "db">, moves: ApprovedMoves) {
  const { db } = deps;

  /** The approval `id` of an agent `owner` owns: 404 none, 403 another's. */
  async function ownedApproval(owner: string, id: string): Promise<ApprovalRow> {
    if (!isUuid(id)) throw notFound("Approval");
    const [found] = await db
      .select({ approval: spendingApprovals, owned: sql<boolean>`coalesce(${ownedBy(owner)}, false)` })
      .from(spendingApprovals)
      .innerJoin(agents, eq(agents.id, spendingApprovals.agentId))
      .where(eq(spendingApprovals.id, id));
    if (!found) throw notFound("Approval");
    if (!found.owned) throw forbidden("This session's address does not own that approval's agent");
    return found.approval;
  }

  /** The condition that `owner` owns the approval's agent, for a claim in one statement. */
  const ownedByOwner = (owner: string) =>
    sql`EXISTS (SELECT 1 FROM ${agents} WHERE ${agents.id} = ${spendingApprovals.agentId} AND ${ownedBy(owner)})`;

  /**
   * 409 for an approval that is not pending (recording the expiry of one that ran out), after a
   * claim that did not take it.
   */
  async function refuseClosed(owner: string, id: string): Promise<never> {
    const current = await ownedApproval(owner, id);
    if (current.state === "pending" && stateOf(current) === "expired") {
      await db
        .update(spendingApprovals)
        .set({ state: "expired" })
        .where(and(eq(spendingApprovals.id, id), eq(spendingApprovals.state, "pending")));
    }
    throw new ApprovalClosedError(approvalView(current));
  }

  /** Claims the pending approval `id` for `owner` as `state`, in one statement: undefined if another took it. */
  async function claim(owner: string, id: string, state: "approved" | "declined"): Promise<ApprovalRow | undefined> {
    if (!isUuid(id)) throw notFound("Approval");
    const [claimed] = await db
      .update(spendingApprovals)
      .set({ state, decidedAt: sql`now()` })
      .where(
        and(
          eq(spendingApprovals.id, id),
          eq(spendingApprovals.state, "pending"),
          gt(spendingApprovals.expiresAt, sql`now()`),
          ownedByOwner(owner),
        ),
      )
      .returning();
    return claimed;
  }

  /** Carries out the request of `approval` as `agent`; answers what it did (its result). */
  async function carryOut(agent: Agent, approval: ApprovalRow): Promise<Record<string, unknown>> {
    const origin: SpendOrigin = { kind: "approval", approvalId: approval.id };
    const move = moveRequestOf(approval);
    switch (move.action) {
      case "buy": {
        const { listing_id, offer_id, deadline_hours, expected_price_wei } = move.request;
        const bought = await moves.purchases.buy(agent, listing_id, {
          deadlineHours: deadline_hours,
          offerId: offer_id,
          expectedPriceWei: expected_price_wei,
          origin,
        });
        if (bought.state !== "FUNDED") throw new Error(`an approved purchase answered ${bought.state}`);
        return { transaction_id: bought.transaction_id, tx_hash: bought.tx_hash };
      }
      case "bounty": {
        const created = await moves.listings.create(
          agent,
          { ...move.request, listing_type: "BOUNTY", is_negotiable: false },
          origin,
        );
        if ("approval" in created || created.funding?.state !== "FUNDED") {
          throw new Error("an approved bounty was not funded");
        }
        return {
          listing_id: created.id,
          transaction_id: created.funding.transaction_id,
          tx_hash: created.funding.tx_hash,
        };
      }
      case "transaction": {
        const { seller_agent_id, amount_wei, description, deadline_hours } = move.request;
        const created = await moves.transactionFunding.create({
          caller: agent,
          buyerAgentId: agent.id,
          sellerAgentId: seller_agent_id,
          amountWei: amount_wei,
          currency: "USDC",
          description,
          deadlineHours: deadline_hours,
          origin,
        });
        if (created.state !== "FUNDED") throw new Error(`an approved escrow answered ${created.state}`);
        return { transaction_id: created.transaction_id, tx_hash: created.tx_hash };
      }
      case "withdrawal": {
        const sent = await moves.wallet.withdraw({
          agent,
          destinationAddress: getAddress(move.request.destination_address),
          amountWei: move.request.amount_wei,
          approvalId: approval.id,
        });
        if ("approval" in sent) throw new Error("an approved withdrawal waited for an approval again");
        return { withdrawal_id: sent.id, tx_hash: sent.txHash, state: sent.state };
      }
      case "x402": {
        // Signed now, valid from now: the agent finds it in approval.approved and sends it.
        const signed = await moves.x402Signing.sign({
          agent,
          paymentRequired: move.request.payment_required,
          origin,
        });
        if ("approval" in signed) throw new Error("an approved x402 payment waited for an approval again");
        return { ...signed };
      }
    }
  }

  /** The send an approval's move was tied to, if it was signed (its spending row, domain/wallet). */
  async function sentTxHash(approvalId: string): Promise<string | undefined> {
    const [spent] = await db
      .select({ txHash: agentSpends.txHash })
      .from(agentSpends)
      .where(and(eq(agentSpends.approvalId, approvalId), isNotNull(agentSpends.txHash)))
      .limit(1);
    return spent?.txHash ?? undefined;
  }

  /** Records `changes` on the approval `id` and notifies its agent `kind`, in one database transaction. */
  async function record(
    approval: ApprovalRow,
    changes: Partial<Omit<typeof spendingApprovals.$inferInsert, "completedAt">> & { completedAt?: SQL },
    kind?: DecisionKind,
  ): Promise<ApprovalView> {
    return db.transaction(async (tx) => {
      const [updated] =
        Object.keys(changes).length > 0
          ? await tx.update(spendingApprovals).set(changes).where(eq(spendingApprovals.id, approval.id)).returning()
          : [approval];
      const view = approvalView(updated ?? approval);
      if (kind) await notifyDecision(tx, view, kind);
      return view;
    });
  }

  return {
    /**
     * The approvals of the agents `owner` owns, newest first, by state (as read: a pending one past
     * its expiry is expired) and agent (403 one it does not own).
     */
    async list(owner: string, input: ListApprovalsInput) {
      if (input.agentId !== undefined) await ownedActiveAgent(db, owner, input.agentId);
      const rows = await db
        .select({ approval: spendingApprovals, position: timestampPosition(spendingApprovals.createdAt) })
        .from(spendingApprovals)
        .innerJoin(agents, eq(agents.id, spendingApprovals.agentId))
        .where(
          and(
            ownedBy(owner),
            input.agentId !== undefined ? eq(spendingApprovals.agentId, input.agentId) : undefined,
            input.state !== undefined ? sql`${stateSql} = ${input.state}` : undefined,
            olderThanCursor(spendingApprovals.createdAt, spendingApprovals.id, input.cursor),
          ),
        )
        .orderBy(desc(spendingApprovals.createdAt), desc(spendingApprovals.id))
        .limit(input.limit + 1);
      const { page, nextCursor } = keysetPage(rows, input.limit, (row) => ({ at: row.position, id: row.approval.id }));
      return { approvals: page.map((row) => approvalView(row.approval)), nextCursor };
    },

    /**
     * Approves and carries out the pending approval `id` of an agent `owner` owns, once: another
     * approval of it at the same time (or after) is 409 `approval_closed`. The caps are judged
     * again now: a refusal then (nothing sent) fails the approval and is answered with its own code.
     */
    async approve(owner: string, id: string): Promise<ApprovalView> {
      const claimed = await claim(owner, id, "approved");
      if (!claimed) return refuseClosed(owner, id);
      const [agent] = await db
        .select()
        .from(agents)
        .where(and(eq(agents.id, claimed.agentId), eq(agents.isActive, true)));
      try {
        if (!agent?.hosted) throw new ConflictError("The agent is no longer active", { agent_id: claimed.agentId });
        const result = await carryOut(agent, claimed);
        return await record(claimed, { result, completedAt: sql`now()` }, "approval.approved");
      } catch (error) {
        const txHash = await sentTxHash(claimed.id);
        if (txHash !== undefined && !(error instanceof TransactionRevertedError)) {
          // Sent: the move happened (the answer, e.g. indexer_behind, says what is still to come).
          await record(claimed, { result: { tx_hash: txHash }, completedAt: sql`now()` }, "approval.approved");
          throw error;
        }
        if (!(error instanceof DomainError)) {
          // Nothing was sent and nothing refused it (the chain or the database did not answer):
          // the approval waits again, for the owner to try once more.
          await db
            .update(spendingApprovals)
            .set({ state: "pending", decidedAt: null })
            .where(and(eq(spendingApprovals.id, claimed.id), eq(spendingApprovals.state, "approved")));
          throw error;
        }
        const failed = await record(
          claimed,
          { state: "failed", failure: { code: error.code, error: error.message }, completedAt: sql`now()` },
          "approval.failed",
        );
        throw new ApprovedMoveRefusedError(error, failed);
      }
    },

    /** Declines the pending approval `id`: nothing moves; 409 `approval_closed` when it is not pending. */
    async decline(owner: string, id: string): Promise<ApprovalView> {
      const claimed = await claim(owner, id, "declined");
      if (!claimed) return refuseClosed(owner, id);
      return record(claimed, {}, "approval.declined");
    },
  };
}

export type SpendingApprovalUseCases = ReturnType<typeof spendingApprovalUseCases>;
