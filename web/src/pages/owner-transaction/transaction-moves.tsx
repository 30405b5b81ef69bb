import type { GetTransactionReturnType } from "@agent-marketplace/sdk";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { ErrorNote, Loading } from "../../components/states.tsx";
import { agentClient, client as sessionClient } from "../../lib/client.ts";
import { useMarketChanged } from "../../lib/market-changed.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { allowedMoves, type Move, type Role } from "../../lib/transaction-moves.ts";
import { DeliverForm, DisputeForm, EvidenceForm, ReviewForm } from "./move-forms.tsx";

const WalletCalls = lazy(() => import("../../wallet/wallet-calls.tsx"));

type Transaction = GetTransactionReturnType;
type Instructions = { calls: { to: string; data: string; function: string }[]; chain_id: number };
/** A move's call; called again with the tx hash when an external agent made the on-chain step. */
export type MoveCall = (proof?: { tx_hash: string }) => Promise<unknown>;

const hasInstructions = (answer: unknown): answer is { instructions: Instructions } =>
  typeof answer === "object" && answer !== null && "instructions" in answer;

/** The moves this party may make now; an external agent's on-chain step goes through its wallet. */
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
  const client = agentClient(agentId);
  const [onChain, setOnChain] = useState<{ instructions: Instructions; complete: MoveCall }>();
  // An external agent's on-chain step must come from its own wallet.
  const owned = useQuery({ queryKey: ownerKeys.agents, queryFn: () => sessionClient.listOwnedAgents() });
  const wallet = owned.data?.agents.find((agent) => agent.id === agentId)?.wallet_address;
  const [done, setDone] = useState<string>();
  const move = useMutation({
    mutationFn: async ({ call, label }: { call: MoveCall; label: string }) => {
      const answer = await call();
      if (hasInstructions(answer)) setOnChain({ instructions: answer.instructions, complete: call });
      else setDone(label);
      return answer;
    },
    onSuccess: marketChanged,
  });
  const complete = useMutation({
    mutationFn: (txHash: string) => {
      if (!onChain) throw new Error("No on-chain step is waiting");
      return onChain.complete({ tx_hash: txHash });
    },
    onSuccess: () => {
      setOnChain(undefined);
      setDone("Done");
      void queryClient.invalidateQueries({ queryKey: ownerKeys.all });
    },
  });
  const moves = allowedMoves({ state: transaction.state, role, autoReleaseAt: transaction.auto_release_at });
  const run = (label: string, call: MoveCall) => {
    setDone(undefined);
    move.mutate({ call, label });
  };
  const id = transaction.id;
  const has = (name: Move) => moves.includes(name);

  return (
    <section aria-labelledby="moves-heading">
      <h2 id="moves-heading">What you can do</h2>
      {moves.length === 0 && <p>Nothing to do in this state ({transaction.state}).</p>}
      {has("deliver") && (
        <DeliverForm
          busy={move.isPending}
          onDeliver={(body) => run("Delivered", (proof) => client.deliverWork({ id, ...body, ...proof }))}
        />
      )}
      {(has("release") || has("refund")) && (
        <p className="move-buttons">
          {has("release") && (
            <button
              type="button"
              disabled={move.isPending}
              onClick={() => run("Released", (proof) => client.releaseEscrow({ id, ...proof }))}
            >
              Release payment
            </button>
          )}{" "}
          {has("refund") && (
            <button
              type="button"
              className="secondary"
              disabled={move.isPending}
              onClick={() => run("Refunded", (proof) => client.refundEscrow({ id, ...proof }))}
            >
              Refund the buyer
            </button>
          )}
        </p>
      )}
      {has("dispute") && (
        <DisputeForm
          busy={move.isPending}
          onDispute={({ reason, evidence }) =>
            run("Disputed", async (proof) => {
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
          onEvidence={(body) => run("Evidence added", () => client.addEvidence({ id, ...body }))}
        />
      )}
      {has("review") && (
        <ReviewForm
          busy={move.isPending}
          onReview={(body) => run("Review posted", () => client.reviewTransaction({ id, ...body }))}
        />
      )}
      {move.isPending && <Loading label="Waiting for the chain…" />}
      {move.isError && <ErrorNote error={move.error} />}
      {done && <p role="status">{done}.</p>}
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
