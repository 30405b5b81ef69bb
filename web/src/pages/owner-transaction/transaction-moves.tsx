import { type GetTransactionReturnType, TRANSACTION_STATES, type TransactionState } from "@agent-marketplace/sdk";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { ReviewSheet } from "../../components/review-sheet.tsx";
import { ErrorNote, Loading } from "../../components/states.tsx";
import { useToast } from "../../components/toasts.tsx";
import { formatUsdc } from "../../lib/amounts.ts";
import { agentClient, client as sessionClient } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { formatFeeBps, priceSplit } from "../../lib/fees.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { useFeeBps } from "../../lib/platform-info.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { allowedMoves, type Move, type Role } from "../../lib/transaction-moves.ts";
import { stateWords } from "../../lib/transaction-words.ts";
import { DeliverForm, DisputeForm, EvidenceForm, ReviewForm } from "./move-forms.tsx";

const WalletCalls = lazy(() => import("../../wallet/wallet-calls.tsx"));

type Transaction = GetTransactionReturnType;
type Instructions = { calls: { to: string; data: string; function: string }[]; chain_id: number };
/** A move's call; called again with the tx hash when an external agent made the on-chain step. */
export type MoveCall = (proof?: { tx_hash: string }) => Promise<unknown>;

const hasInstructions = (answer: unknown): answer is { instructions: Instructions } =>
  typeof answer === "object" && answer !== null && "instructions" in answer;

/** The state a move's answer reports, when it names one. */
function stateOfAnswer(answer: unknown): TransactionState | undefined {
  if (typeof answer !== "object" || answer === null || !("state" in answer)) return undefined;
  return TRANSACTION_STATES.find((state) => state === answer.state);
}

/** What the buyer's and the seller's refund buttons say: the buyer takes its money back, the seller gives it. */
export function refundLabel(role: Role): string {
  return role === "buyer" ? "Cancel and take the money back" : "Refund the buyer";
}

/** A move that moves money, reviewed in a sheet before anything is sent. */
type MoneyMove = "release" | "refund";

/**
 * The moves this party may make now; an external agent's on-chain step goes through its wallet.
 * Release and refund open a review first (nothing is sent before its confirm); once a move is done
 * the controls it used up go (the page follows the move's answer until it reads the new state) and
 * a toast says what happened.
 */
export function TransactionMoves({
  transaction,
  agentId,
  role,
}: {
  transaction: Transaction;
  agentId: string;
  role: Role;
}) {
  const queryClient = useQueryClient();
  const marketChanged = useMarketChanged();
  const toast = useToast();
  const client = agentClient(agentId);
  const [onChain, setOnChain] = useState<{ instructions: Instructions; complete: MoveCall; done: string }>();
  const [sheet, setSheet] = useState<MoneyMove>();
  // The state a move reported, while the page still reads the one it replaced.
  const [moved, setMoved] = useState<{ from: TransactionState; to: TransactionState }>();
  // An external agent's on-chain step must come from its own wallet.
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => sessionClient.listOwnedAgents() });
  const wallet = owned.data?.agents.find((agent) => agent.id === agentId)?.wallet_address;
  const finished = (done: string, answer: unknown) => {
    const to = stateOfAnswer(answer);
    if (to && to !== transaction.state) setMoved({ from: transaction.state, to });
    toast({ message: done });
  };
  const move = useMutation({
    mutationFn: async ({ call }: { call: MoveCall; done: string }) => call(),
    onSuccess: (answer, { call, done }) => {
      setSheet(undefined);
      if (hasInstructions(answer)) setOnChain({ instructions: answer.instructions, complete: call, done });
      else finished(done, answer);
      marketChanged();
    },
  });
  const complete = useMutation({
    mutationFn: (txHash: string) => {
      if (!onChain) throw new Error("No on-chain step is waiting");
      return onChain.complete({ tx_hash: txHash });
    },
    onSuccess: (answer) => {
      if (onChain) finished(onChain.done, answer);
      setOnChain(undefined);
      void queryClient.invalidateQueries({ queryKey: ownerKeys.all });
    },
  });
  const state = moved && moved.from === transaction.state ? moved.to : transaction.state;
  const moves = onChain ? [] : allowedMoves({ state, role, autoReleaseAt: transaction.auto_release_at });
  const run = (done: string, call: MoveCall) => move.mutate({ call, done });
  const id = transaction.id;
  const has = (name: Move) => moves.includes(name);
  const seller = transaction.seller?.name ?? "the seller";

  return (
    <section aria-labelledby="moves-heading">
      <h2 id="moves-heading">What you can do</h2>
      {moves.length === 0 && !onChain && (
        <p>Nothing to do now: the transaction is {stateWords({ ...transaction, state }).toLowerCase()}.</p>
      )}
      {has("deliver") && (
        <DeliverForm
          busy={move.isPending}
          onDeliver={(body) => run("Work delivered.", (proof) => client.deliverWork({ id, ...body, ...proof }))}
        />
      )}
      {(has("release") || has("refund")) && (
        <p className="move-buttons">
          {has("release") && (
            <button type="button" disabled={move.isPending} onClick={() => setSheet("release")}>
              {role === "buyer" ? "Release payment" : "Collect the payment"}
            </button>
          )}{" "}
          {has("refund") && (
            <button type="button" className="secondary" disabled={move.isPending} onClick={() => setSheet("refund")}>
              {refundLabel(role)}
            </button>
          )}
        </p>
      )}
      {sheet && (
        <MoneyMoveSheet
          move={sheet}
          role={role}
          transaction={transaction}
          pending={move.isPending}
          error={move.error}
          onCancel={() => {
            setSheet(undefined);
            move.reset();
          }}
          onConfirm={(sellerWei) =>
            sheet === "release"
              ? run(`Payment released: ${seller} receives ${formatUsdc(sellerWei)} USDC.`, (proof) =>
                  client.releaseEscrow({ id, ...proof }),
                )
              : run(
                  `Refunded: ${formatUsdc(transaction.amount_wei)} USDC back to ${transaction.buyer.name}.`,
                  (proof) => client.refundEscrow({ id, ...proof }),
                )
          }
        />
      )}
      {has("dispute") && (
        <DisputeForm
          busy={move.isPending}
          onDispute={({ reason, evidence }) =>
            run("Dispute raised: the arbiter will look at it.", async (proof) => {
              const answer = await client.openDispute({ id, reason, ...proof });
              if (!hasInstructions(answer) && evidence) await client.addEvidence({ id, ...evidence });
              return answer;
            })
          }
        />
      )}
      {has("evidence") && (
        <EvidenceForm
          busy={move.isPending}
          onEvidence={(body) => run("Evidence added for the arbiter.", () => client.addEvidence({ id, ...body }))}
        />
      )}
      {has("review") && <Review transaction={transaction} agentId={agentId} role={role} />}
      {move.isPending && !sheet && <Loading label="Waiting for the chain…" />}
      {move.isError && !sheet && <ErrorNote error={move.error} />}
      {onChain && (
        <div>
          <p role="status">
            This agent signs with its own wallet: send the transaction, then the marketplace records it.
          </p>
          <Suspense fallback={<Loading label="Loading the wallet…" />}>
            <WalletCalls
              calls={onChain.instructions.calls}
              chainId={onChain.instructions.chain_id}
              expectedAddress={wallet}
              onSent={(txHash) => complete.mutate(txHash)}
            />
          </Suspense>
          {complete.isError && <ErrorNote error={complete.error} />}
        </div>
      )}
    </section>
  );
}

/**
 * The review of a release or a refund: the price, the platform fee at the escrow's own rate, what
 * each side receives, and what cannot be undone. Nothing is sent before "confirm".
 */
function MoneyMoveSheet({
  move,
  role,
  transaction,
  pending,
  error,
  onCancel,
  onConfirm,
}: {
  move: MoneyMove;
  role: Role;
  transaction: Transaction;
  pending: boolean;
  error: unknown;
  onCancel: () => void;
  /** Called with what the seller receives (the toast says it). */
  onConfirm: (sellerWei: bigint) => void;
}) {
  const platformFeeBps = useFeeBps();
  const feeBps = transaction.fee_bps ?? platformFeeBps ?? 0;
  const split = priceSplit(transaction.amount_wei, feeBps);
  const seller = transaction.seller?.name ?? "the seller";
  const buyer = transaction.buyer.name;
  if (move === "release") {
    const sellerWei = BigInt(transaction.seller_receives_wei ?? split.sellerWei);
    return (
      <ReviewSheet
        title={role === "buyer" ? `Release the payment to ${seller}?` : "Collect the payment?"}
        lines={[
          { label: "Price, in escrow", wei: transaction.amount_wei },
          {
            label: `Platform fee (${formatFeeBps(feeBps)})`,
            wei: transaction.fee_wei ?? split.feeWei,
            short: "platform fee",
          },
          { label: `${seller} receives`, wei: sellerWei, strong: true },
          { label: `${buyer} gets back`, wei: 0n },
        ]}
        irreversible={`the payment becomes ${seller}'s: it cannot be taken back, and no dispute can be raised after it.`}
        confirmLabel="Confirm release"
        pending={pending}
        error={error}
        onCancel={onCancel}
        onConfirm={() => onConfirm(sellerWei)}
      />
    );
  }
  return (
    <ReviewSheet
      title={role === "buyer" ? "Cancel and take the money back?" : `Refund ${buyer}?`}
      lines={[
        { label: "Price, in escrow", wei: transaction.amount_wei },
        { label: `${buyer} gets back`, wei: transaction.amount_wei, strong: true },
        { label: `${seller} receives`, wei: 0n },
        { label: "Platform fee", text: "none on a refund" },
      ]}
      irreversible="the whole price goes back to the buyer and the deal ends: it cannot be reopened or released later."
      confirmLabel="Confirm refund"
      pending={pending}
      error={error}
      onCancel={onCancel}
      onConfirm={() => onConfirm(0n)}
    />
  );
}

/** The review of the other party, until this party has posted one (then what it posted). */
function Review({ transaction, agentId, role }: { transaction: Transaction; agentId: string; role: Role }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const other = role === "buyer" ? transaction.seller : transaction.buyer;
  const key = ownerKeys.transactionReviews(agentId, transaction.id);
  // The other party's reviews, this transaction's by this agent among them once posted.
  const received = useQuery({
    queryKey: key,
    queryFn: () => agentClient(agentId).listAgentReviews({ id: other?.id ?? "", limit: 100 }),
    enabled: Boolean(other),
  });
  const post = useMutation({
    mutationFn: (body: { rating: number; comment?: string }) =>
      agentClient(agentId).reviewTransaction({ id: transaction.id, ...body }),
    onSuccess: () => {
      toast({ message: `Review posted: ${other?.name ?? "the other party"} can read it on its profile.` });
      void queryClient.invalidateQueries({ queryKey: key });
    },
    // Posted already (another tab, the agent itself): its review is read again, and shown instead.
    onError: (error) => {
      if (isStatus(error, 409)) void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const mine = received.data?.reviews.find(
    (review) => review.transaction_id === transaction.id && review.reviewer.id === agentId,
  );
  const posted = post.data?.review ?? mine;
  if (!other) return null;
  if (received.isPending) return <Loading label="Loading your review…" />;
  if (posted) {
    return (
      <p data-testid="my-review">
        You rated {other.name} {posted.rating} of 5{posted.comment ? `: “${posted.comment}”` : "."}
      </p>
    );
  }
  return (
    <>
      <ReviewForm busy={post.isPending} onReview={(body) => post.mutate(body)} />
      {post.isError && <ErrorNote error={post.error} />}
    </>
  );
}
