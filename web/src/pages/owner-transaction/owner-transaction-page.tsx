import { useQuery } from "@tanstack/react-query";
import { Link, useSearch } from "wouter";
import { usePageTitle } from "../../components/page-title.ts";
import { RequireSession } from "../../components/require-session.tsx";
import { Empty, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { TxTimeline } from "../../components/timeline.tsx";
import { TransactionSummary } from "../../components/transaction-summary.tsx";
import { agentClient } from "../../lib/client.ts";
import { STREAM_STATE_TEXT, useNotificationStream } from "../../lib/notification-stream.ts";
import { ownerKeys } from "../../lib/query-keys.ts";
import { roleOf } from "../../lib/transaction-moves.ts";
import { TransactionMoves } from "./transaction-moves.tsx";

/** A transaction seen by one of its parties (an owned agent): facts, timeline, deliverable, moves; kept current by the agent's notifications. */
export default function OwnerTransactionPage({ params }: { params: { id: string } }) {
  const agentId = new URLSearchParams(useSearch()).get("agent") ?? "";
  usePageTitle("Transaction");
  return (
    <>
      <h1>Transaction</h1>
      <RequireSession reason="Sign in with your wallet to see this transaction.">
        {agentId ? (
          <TransactionView id={params.id} agentId={agentId} />
        ) : (
          <p>
            Open it from one of <Link href="/owner">your agents</Link>: the page needs to know which side you are on.
          </p>
        )}
      </RequireSession>
    </>
  );
}

function TransactionView({ id, agentId }: { id: string; agentId: string }) {
  const client = agentClient(agentId);
  // The other side's moves (a delivery, a release, a ruling) show without a reload.
  const live = useNotificationStream(agentId);
  const transaction = useQuery({
    queryKey: ownerKeys.transaction(agentId, id),
    queryFn: () => client.getTransaction({ id }),
  });
  const timeline = useQuery({ queryKey: ownerKeys.timeline(agentId, id), queryFn: () => client.getTimeline({ id }) });
  const delivered = Boolean(transaction.data?.delivered_at);
  const deliverable = useQuery({
    queryKey: ownerKeys.deliverable(agentId, id),
    queryFn: () => client.getDeliverable({ id }),
    enabled: delivered,
  });
  return (
    <Loaded query={transaction} label="Loading the transaction…">
      {(tx) => {
        const role = roleOf(tx, agentId);
        return (
          <>
            <p>
              {tx.description || "Direct escrow"} · you are the <strong>{role ?? "onlooker"}</strong> (
              <Link href={`/owner/agents/${agentId}`}>{role === "buyer" ? tx.buyer.name : tx.seller?.name}</Link>){" "}
              <small data-testid="live-state">{STREAM_STATE_TEXT[live]}</small>
            </p>
            <section aria-labelledby="details-heading">
              <h2 id="details-heading">Details</h2>
              <TransactionSummary transaction={tx} />
            </section>
            {role && <TransactionMoves transaction={tx} agentId={agentId} role={role} />}
            <section aria-labelledby="deliverable-heading">
              <h2 id="deliverable-heading">Deliverable</h2>
              {!delivered ? (
                <Empty>Nothing delivered yet.</Empty>
              ) : (
                <Loaded query={deliverable} label="Loading the deliverable…">
                  {(work) => (
                    <article>
                      <pre className="deliverable">{work.content}</pre>
                      {work.deliverable_url && (
                        <p>
                          Link: {/* The other party wrote it: a link only when it is a web address. */}
                          {/^https?:\/\//i.test(work.deliverable_url) ? (
                            <a href={work.deliverable_url} rel="noopener noreferrer nofollow">
                              {work.deliverable_url}
                            </a>
                          ) : (
                            <code>{work.deliverable_url}</code>
                          )}
                        </p>
                      )}
                      <small>
                        Delivered <Time iso={work.delivered_at} />
                      </small>
                      <details>
                        <summary>Details</summary>
                        <p>
                          Its keccak256 hash, committed on chain: <code>{work.deliverable_hash}</code>
                        </p>
                      </details>
                    </article>
                  )}
                </Loaded>
              )}
            </section>
            <section aria-labelledby="timeline-heading">
              <h2 id="timeline-heading">Timeline</h2>
              <Loaded query={timeline} label="Loading the timeline…">
                {(answer) => <TxTimeline events={answer.events} />}
              </Loaded>
            </section>
          </>
        );
      }}
    </Loaded>
  );
}
