import type { ListSpendingApprovalsReturnType } from "@agent-marketplace/sdk";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { balanceLines, MoveRefusal, useOwnedAgent } from "../../components/money-review.tsx";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { useToast } from "../../components/toasts.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { formatUsdc } from "../../lib/amounts.ts";
import { client } from "../../lib/client.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

type Approval = ListSpendingApprovalsReturnType["approvals"][number];

/** What each kind of move does once approved, for the review. */
const WHAT_IT_DOES: Record<Approval["action"], string> = {
  buy: "The price goes from the agent's wallet into escrow, for the seller to deliver.",
  bounty: "The reward goes from the agent's wallet into escrow, and the bounty is listed.",
  transaction: "The amount goes from the agent's wallet into escrow, for the seller to deliver.",
  withdrawal: "The USDC leaves the agent's wallet for the address named.",
  x402: "The agent's wallet signs an x402 payment to the service named; the USDC leaves once that service settles it (within 10 minutes).",
};

/**
 * The agent's moves above the approval threshold: the pending ones, each approved (after the
 * review sheet: it is carried out at once, once) or declined (nothing moves); then the recent
 * decisions and what came of them. Nothing at all while there never was one.
 */
export function SpendingApprovals({ agentId }: { agentId: string }) {
  const id = useId();
  const approvals = useQuery({
    queryKey: ownerKeys.approvals(agentId),
    queryFn: () => client.listSpendingApprovals({ agent_id: agentId, limit: 20 }),
  });
  const [reviewing, setReviewing] = useState<Approval | undefined>();
  // An agent that never had a move to approve shows nothing here: the section appears with the first one.
  if (approvals.isPending || approvals.data?.approvals.length === 0) return null;
  return (
    <section id="approvals" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Waiting for your approval</h2>
      <Loaded query={approvals} label="Loading approvals…">
        {({ approvals: rows }) => {
          const pending = rows.filter((row) => row.state === "pending");
          const decided = rows.filter((row) => row.state !== "pending").slice(0, 5);
          return (
            <>
              {pending.length === 0 ? (
                <Empty>Nothing waits for your approval.</Empty>
              ) : (
                <ul className="approvals">
                  {pending.map((approval) => (
                    <PendingApproval
                      key={approval.id}
                      agentId={agentId}
                      approval={approval}
                      onApprove={() => setReviewing(approval)}
                    />
                  ))}
                </ul>
              )}
              {decided.length > 0 && (
                <details>
                  <summary>Recent decisions</summary>
                  <ul className="approvals">
                    {decided.map((approval) => (
                      <li key={approval.id} data-testid="decided-approval">
                        <Usdc wei={approval.amount_wei} /> · {approval.summary} · <strong>{approval.state}</strong>
                        {approval.failure && <> ({approval.failure.error})</>} · <Time iso={approval.decided_at} />
                      </li>
                    ))}
                  </ul>
                </details>
              )}
            </>
          );
        }}
      </Loaded>
      {reviewing && <ApproveReview agentId={agentId} approval={reviewing} onDone={() => setReviewing(undefined)} />}
    </section>
  );
}

function PendingApproval({
  agentId,
  approval,
  onApprove,
}: {
  agentId: string;
  approval: Approval;
  onApprove: () => void;
}) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const decline = useMutation({
    mutationFn: () => client.declineSpending({ id: approval.id }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ownerKeys.approvals(agentId) });
      void queryClient.invalidateQueries({ queryKey: ownerKeys.pendingApprovals });
    },
    onSuccess: () => toast({ message: `Declined: ${approval.summary}. Nothing was sent.` }),
  });
  return (
    <li data-testid="pending-approval">
      <strong>
        <Usdc wei={approval.amount_wei} />
      </strong>{" "}
      · {approval.summary} · asked <Time iso={approval.created_at} />, expires <Time iso={approval.expires_at} />{" "}
      <button type="button" onClick={onApprove}>
        Review and approve
      </button>{" "}
      <button
        type="button"
        className="secondary"
        disabled={decline.isPending}
        aria-busy={decline.isPending}
        onClick={() => decline.mutate()}
      >
        Decline
      </button>
      {decline.isError && <ErrorNote error={decline.error} />}
    </li>
  );
}

/** The review before an approved move is carried out: what it pays, for what, and the balance after. */
function ApproveReview({ agentId, approval, onDone }: { agentId: string; approval: Approval; onDone: () => void }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const agent = useOwnedAgent(agentId);
  const approve = useMutation({
    mutationFn: () => client.approveSpending({ id: approval.id }),
    onSettled: () => {
      // Approved or refused, the approval changed; approved, money moved.
      for (const queryKey of [
        ownerKeys.approvals(agentId),
        ownerKeys.pendingApprovals,
        ownerKeys.limits(agentId),
        ownerKeys.agents,
        ownerKeys.transactions(agentId),
        ownerKeys.withdrawals(agentId),
        ownerKeys.listings(agentId),
      ]) {
        void queryClient.invalidateQueries({ queryKey });
      }
    },
    onSuccess: () => {
      onDone();
      toast({ message: `Approved and carried out: ${approval.summary}, ${formatUsdc(approval.amount_wei)} USDC.` });
    },
  });
  return (
    <ReviewSheet
      title="Review the approval"
      lines={[
        { label: "Pays", wei: approval.amount_wei, strong: true },
        { label: "For", text: approval.summary },
        ...balanceLines(agent, approval.amount_wei),
      ]}
      irreversible={
        <>
          {WHAT_IT_DOES[approval.action]} Approving carries it out now, once; your spending caps are checked again
          first.
        </>
      }
      confirmLabel={`Confirm: approve ${formatUsdc(approval.amount_wei)} USDC`}
      onConfirm={() => approve.mutate()}
      onCancel={onDone}
      pending={approve.isPending}
    >
      <MoveRefusal error={approve.error} />
    </ReviewSheet>
  );
}
