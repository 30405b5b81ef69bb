import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { DbTransaction } from "../../db/client.ts";
import { agentSpends, relayedTransactions, spendingApprovals, transactions, withdrawals } from "../../db/schema.ts";
import type { Deps } from "../../deps.ts";
import { approvalView } from "../wallet/approval-requests.ts";
import { UNSIGNED_SPEND_LIFETIME } from "../wallet/spending-caps.ts";
import { type DecisionKind, notifyDecision } from "./spending-approvals.ts";

/*
 * The repair of approvals whose carrying out was interrupted (the keeper runs it every round).
 * Approving claims the approval (approved, decided_at) before the move is carried out and records
 * its outcome after (spending-approvals.ts): a process that dies in between leaves it approved
 * with no completed_at. Once INTERRUPTED_APPROVAL_GRACE has passed since the claim (longer than
 * any carrying out takes, so one still under way is never touched), what the move's spending rows
 * (app.agent_spends, by approval_id) and the relayer's outbox say decides it:
 * - signed and mined: it moved; recorded approved with its tx_hash (and the transaction,
 *   bounty listing or withdrawal that hash funded), and the agent told `approval.approved`;
 * - signed and reverted or dropped (or sent on a chain that is gone): nothing moved; failed;
 * - signed and not settled yet: left for the next round (the keeper's reconciliation, run first,
 *   finishes the send);
 * - not signed, and no unsigned spending row of it is young enough to be signed still
 *   (UNSIGNED_SPEND_LIFETIME: the outbox refuses to tie one older): nothing was or will be sent;
 *   the approval is pending again for its owner to approve once more, or failed (`interrupted`,
 *   `approval.failed`) if it has expired meanwhile.
 * Each approval is repaired in one database transaction holding its row (FOR UPDATE SKIP LOCKED),
 * so two keepers at once repair it once; a signed move is never put back to pending, so it is
 * never paid twice.
 */

/** How long after its claim an approval not completed is taken as interrupted: minutes more than a carrying out takes. */
export const INTERRUPTED_APPROVAL_GRACE = "15 minutes";

/** How many interrupted approvals one round repairs at most (the next round takes the rest). */
const BATCH = 100;

export interface HealedApprovals {
  /** Signed and mined: recorded approved. */
  completed: string[];
  /** Nothing sent: pending again. */
  reopened: string[];
  /** Nothing moved, and it cannot wait again (expired, or its send reverted): failed. */
  failed: string[];
}

type Outcome = keyof HealedApprovals | "waiting";

export function interruptedApprovals(deps: Pick<Deps, "db" | "relayer">) {
  const { db, relayer } = deps;

  const interrupted = and(
    eq(spendingApprovals.state, "approved"),
    isNull(spendingApprovals.completedAt),
    lt(spendingApprovals.decidedAt, sql`now() - ${INTERRUPTED_APPROVAL_GRACE}::interval`),
  );

  /** What the send `txHash` made: its transaction (and a bounty's listing) or withdrawal. */
  async function resultOf(tx: DbTransaction, txHash: string, transactionId: string | null) {
    const [funded] = transactionId
      ? await tx
          .select({ listingId: transactions.listingId })
          .from(transactions)
          .where(eq(transactions.id, transactionId))
      : [];
    const [withdrawal] = await tx
      .select({ id: withdrawals.id })
      .from(withdrawals)
      .where(eq(withdrawals.txHash, txHash))
      .limit(1);
    return {
      tx_hash: txHash,
      ...(funded && { transaction_id: transactionId }),
      ...(funded?.listingId && { listing_id: funded.listingId }),
      ...(withdrawal && { withdrawal_id: withdrawal.id }),
    };
  }

  /** Repairs the approval `id` if it is (still) interrupted and no other keeper holds it. */
  async function healOne(id: string): Promise<Outcome> {
    return db.transaction(async (tx) => {
      const [found] = await tx
        .select({ approval: spendingApprovals, expired: sql<boolean>`${spendingApprovals.expiresAt} <= now()` })
        .from(spendingApprovals)
        .where(and(eq(spendingApprovals.id, id), interrupted))
        .for("update", { skipLocked: true });
      if (!found) return "waiting";
      const spends = await tx
        .select({
          txHash: agentSpends.txHash,
          signable: sql<boolean>`${agentSpends.createdAt} > now() - ${UNSIGNED_SPEND_LIFETIME}::interval`,
          status: relayedTransactions.status,
          chainInstance: relayedTransactions.chainInstance,
          transactionId: relayedTransactions.transactionId,
        })
        .from(agentSpends)
        .leftJoin(relayedTransactions, eq(relayedTransactions.txHash, agentSpends.txHash))
        .where(eq(agentSpends.approvalId, id));
      const settle = async (changes: Partial<typeof spendingApprovals.$inferInsert>, kind: DecisionKind) => {
        const [updated] = await tx
          .update(spendingApprovals)
          .set({ ...changes, completedAt: sql`now()` })
          .where(eq(spendingApprovals.id, id))
          .returning();
        if (updated) await notifyDecision(tx, approvalView(updated), kind);
      };
      const fail = (error: string) =>
        settle({ state: "failed", failure: { code: "interrupted", error } }, "approval.failed");

      const signed = spends.filter((spend) => spend.txHash !== null);
      const mined = signed.find((spend) => spend.status === "mined");
      if (mined?.txHash) {
        await settle({ result: await resultOf(tx, mined.txHash, mined.transactionId) }, "approval.approved");
        return "completed";
      }
      // Signed on this chain and not settled yet: the outbox finishes it first (mined, reverted or
      // dropped). Without an outbox row (never, as the send is tied in its transaction) it waits too.
      const unsettled = signed.some(
        (spend) =>
          spend.status === null || (spend.status === "signed" && spend.chainInstance === relayer.chainInstance),
      );
      if (unsettled) return "waiting";
      if (signed.length > 0) {
        // Reverted, dropped, or sent on a chain that is gone: it spent nothing.
        await fail(
          `The approved move was interrupted and its send ${signed[0]?.txHash} did not go through; nothing moved`,
        );
        return "failed";
      }
      // Not signed: a spending row young enough may be tied to a send still.
      if (spends.some((spend) => spend.signable)) return "waiting";
      if (found.expired) {
        await fail("The approved move was interrupted before anything was sent, and the approval has expired since");
        return "failed";
      }
      await tx.update(spendingApprovals).set({ state: "pending", decidedAt: null }).where(eq(spendingApprovals.id, id));
      return "reopened";
    });
  }

  return {
    /** Repairs the approvals whose carrying out was interrupted more than the grace period ago. */
    async heal(): Promise<HealedApprovals> {
      const healed: HealedApprovals = { completed: [], reopened: [], failed: [] };
      const due = await db
        .select({ id: spendingApprovals.id })
        .from(spendingApprovals)
        .where(interrupted)
        .orderBy(spendingApprovals.decidedAt)
        .limit(BATCH);
      for (const { id } of due) {
        const outcome = await healOne(id);
        if (outcome !== "waiting") healed[outcome].push(id);
      }
      return healed;
    },
  };
}
