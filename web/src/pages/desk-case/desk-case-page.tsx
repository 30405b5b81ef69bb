import type { GetDisputeReturnType } from "@agent-marketplace/sdk";
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { usePageTitle } from "../../components/page-title.ts";
import { RequireSession } from "../../components/require-session.tsx";
import { Empty, ErrorNote, Loading } from "../../components/states.tsx";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Time } from "../../components/time.tsx";
import { TxTimeline } from "../../components/timeline.tsx";
import { TransactionSummary } from "../../components/transaction-summary.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { deskKeys } from "../../lib/query-keys.ts";
import { formatSuccessRate } from "../../lib/reputation.ts";
import { rulingWords, stateWords } from "../../lib/transaction-words.ts";
import { ResolveForm } from "./resolve-form.tsx";

type DisputeCase = GetDisputeReturnType;

/** One dispute: both sides, the work and its hash check, their messages, and the ruling. */
export default function DeskCasePage({ params }: { params: { transactionId: string } }) {
  usePageTitle("Dispute");
  return (
    <>
      <h1>Dispute</h1>
      <p>
        <Link href="/desk">Back to the queue</Link>
      </p>
      <RequireSession reason="Sign in with the arbiter's wallet to open the desk.">
        <CaseView transactionId={params.transactionId} />
      </RequireSession>
    </>
  );
}

function CaseView({ transactionId }: { transactionId: string }) {
  const dispute = useQuery({
    queryKey: deskKeys.case(transactionId),
    queryFn: () => client.getDispute({ transaction_id: transactionId }),
  });
  if (dispute.isPending) return <Loading label="Loading the case…" />;
  if (isStatus(dispute.error, 403)) {
    return (
      <p role="alert" className="error-note">
        Only the arbiter can open the desk.
      </p>
    );
  }
  if (!dispute.data) return <ErrorNote error={dispute.error} retry={() => dispute.refetch()} />;
  const file = dispute.data;
  return (
    <>
      <section aria-labelledby="reason-heading">
        <h2 id="reason-heading">Reason</h2>
        <p>
          Raised by the {file.raised_by} <Time iso={file.raised_at} />
        </p>
        <blockquote>{file.reason ?? "(no reason kept)"}</blockquote>
        <TransactionSummary transaction={file.transaction} showDispute={false} />
      </section>
      <div className="grid two">
        <Party title="Buyer" party={file.buyer} side="buyer" evidence={file.evidence} />
        {file.seller ? (
          <Party title="Seller" party={file.seller} side="seller" evidence={file.evidence} />
        ) : (
          <Empty>No seller.</Empty>
        )}
      </div>
      <section aria-labelledby="work-heading">
        <h2 id="work-heading">Deliverable</h2>
        {file.deliverable ? (
          <article>
            <pre className="deliverable">{file.deliverable.content}</pre>
            <p className={file.deliverable.matches_chain ? "verdict match" : "verdict mismatch"}>
              {file.deliverable.matches_chain
                ? "✓ This is the work the seller committed to on chain (its hash matches)."
                : "✗ This is not the work the seller committed to on chain (its hash does not match)."}
            </p>
            <details>
              <summary>Details</summary>
              <p>
                keccak256 of the work: <code>{file.deliverable.hash}</code>
              </p>
            </details>
          </article>
        ) : (
          <Empty>Nothing was delivered.</Empty>
        )}
      </section>
      <section aria-labelledby="messages-heading">
        <h2 id="messages-heading">The parties' messages</h2>
        {file.messages.length === 0 ? (
          <Empty>They exchanged no messages.</Empty>
        ) : (
          <ol className="thread">
            {file.messages.map((message) => (
              <li key={message.id}>
                <strong>
                  {(message.sent_by === "buyer" ? file.buyer.name : file.seller?.name) ?? "the seller"} (the{" "}
                  {message.sent_by})
                </strong>{" "}
                <Time iso={message.created_at} />
                <p>{message.content}</p>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <TxTimeline events={file.timeline} />
      </section>
      {file.transaction.state === "DISPUTED" ? (
        <ResolveForm
          transactionId={transactionId}
          amountWei={file.transaction.amount_wei}
          feeBps={file.fee_bps}
          buyerName={file.buyer.name}
          sellerName={file.seller?.name ?? "the seller"}
        />
      ) : file.transaction.resolution ? (
        <p data-testid="case-ruling">
          {rulingWords(file.transaction.resolution.seller_bps)}. The seller received{" "}
          <Usdc wei={file.transaction.resolution.seller_received_wei} />, the buyer got back{" "}
          <Usdc wei={file.transaction.resolution.buyer_refunded_wei} />.
        </p>
      ) : (
        <p>This dispute is settled without a ruling: {stateWords(file.transaction).toLowerCase()}.</p>
      )}
    </>
  );
}

function Party({
  title,
  party,
  side,
  evidence,
}: {
  title: string;
  party: NonNullable<DisputeCase["seller"]>;
  side: "buyer" | "seller";
  evidence: DisputeCase["evidence"];
}) {
  const theirs = evidence.filter((item) => item.submitted_by === side);
  return (
    <section aria-labelledby={`${side}-heading`}>
      <h2 id={`${side}-heading`}>
        {title}: <Link href={`/agents/${party.id}`}>{party.name}</Link>
      </h2>
      <p>
        <TierBadge tier={party.reputation.reputation_tier} /> · {party.reputation.completed_transactions} completed ·{" "}
        {party.reputation.disputed} disputed · success{" "}
        {formatSuccessRate(party.reputation.success_rate, party.reputation.rated_deals)}
      </p>
      <h3>Evidence</h3>
      {theirs.length === 0 ? (
        <Empty>No evidence from the {side}.</Empty>
      ) : (
        <ul data-testid={`${side}-evidence`}>
          {theirs.map((item) => (
            <li key={item.id}>
              <Time iso={item.created_at} />
              <p>{item.content}</p>
              {item.url && <small>{item.url}</small>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
