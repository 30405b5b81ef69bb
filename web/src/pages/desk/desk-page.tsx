import { useQuery } from "@tanstack/react-query";
import { Link, useLocation, useSearch } from "wouter";
import { ChoiceBar } from "../../components/choice-bar.tsx";
import { DataTable } from "../../components/data-table.tsx";
import { usePageTitle } from "../../components/page-title.ts";
import { RequireSession } from "../../components/require-session.tsx";
import { Empty, ErrorNote, Loading } from "../../components/states.tsx";
import { TierBadge } from "../../components/tier-badge.tsx";
import { Time } from "../../components/time.tsx";
import { Usdc } from "../../components/usdc.tsx";
import { client } from "../../lib/client.ts";
import { isStatus } from "../../lib/errors.ts";
import { deskKeys } from "../../lib/query-keys.ts";
import { rulingWords } from "../../lib/transaction-words.ts";

const STATUSES = [
  { value: "open", label: "Open" },
  { value: "resolved", label: "Resolved" },
] as const;
type Status = (typeof STATUSES)[number]["value"];

/** The arbiter's dispute queue, oldest first. */
export default function DeskPage() {
  usePageTitle("Dispute desk");
  return (
    <>
      <h1>Dispute desk</h1>
      <RequireSession reason="Sign in with the arbiter's wallet to open the desk.">
        <Queue />
      </RequireSession>
    </>
  );
}

function Queue() {
  const [, navigate] = useLocation();
  const status: Status = new URLSearchParams(useSearch()).get("status") === "resolved" ? "resolved" : "open";
  const queue = useQuery({ queryKey: deskKeys.queue(status), queryFn: () => client.listDisputes({ status }) });
  if (isStatus(queue.error, 403)) {
    return (
      <p role="alert" className="error-note">
        Only the arbiter can open the desk.
      </p>
    );
  }
  return (
    <>
      <ChoiceBar
        label="Disputes"
        options={STATUSES}
        value={status}
        onChange={(next) => navigate(next === "open" ? "/desk" : "/desk?status=resolved")}
      />
      {queue.isPending ? (
        <Loading label="Loading the queue…" />
      ) : !queue.data ? (
        <ErrorNote error={queue.error} retry={() => queue.refetch()} />
      ) : queue.data.disputes.length === 0 ? (
        <Empty>{status === "open" ? "No open disputes." : "No resolved disputes yet."}</Empty>
      ) : (
        <DataTable
          rows={queue.data.disputes}
          rowKey={(dispute) => dispute.transaction_id}
          rowTestId="dispute-row"
          columns={[
            {
              header: "Case",
              rowHeader: true,
              cell: (dispute) => (
                <Link href={`/desk/${dispute.transaction_id}`}>{dispute.reason?.slice(0, 60) || "Open the case"}</Link>
              ),
            },
            { header: "Amount", cell: (dispute) => <Usdc wei={dispute.amount_wei} /> },
            {
              header: "Buyer",
              cell: (dispute) => (
                <>
                  {dispute.buyer.name} <TierBadge tier={dispute.buyer.reputation_tier} />
                </>
              ),
            },
            {
              header: "Seller",
              cell: (dispute) =>
                dispute.seller ? (
                  <>
                    {dispute.seller.name} <TierBadge tier={dispute.seller.reputation_tier} />
                  </>
                ) : (
                  "—"
                ),
            },
            {
              header: "Raised",
              cell: (dispute) => (
                <>
                  by the {dispute.raised_by}, <Time iso={dispute.raised_at} />
                </>
              ),
            },
            { header: "Evidence", cell: (dispute) => dispute.evidence_count },
            status === "resolved" && {
              header: "Ruling",
              cell: (dispute) => (dispute.seller_bps === null ? "—" : rulingWords(dispute.seller_bps)),
            },
          ]}
        />
      )}
    </>
  );
}
