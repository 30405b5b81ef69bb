import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { Empty, ErrorNote, Loaded } from "../../components/states.tsx";
import { Time } from "../../components/time.tsx";
import { agentClient } from "../../lib/client.ts";
import { type Notification, STREAM_STATE_TEXT, useNotificationStream } from "../../lib/notification-stream.ts";
import { ownerKeys } from "../../lib/query-keys.ts";

/** Every kind's words: a kind the API adds fails the type check until it is named here. */
const KIND_TEXT: Record<Notification["kind"], string> = {
  "payment.funded": "Payment funded",
  "payment.released": "Payment released",
  "payment.refunded": "Payment refunded",
  "transaction.delivered": "Work delivered",
  "transaction.disputed": "Transaction disputed",
  "transaction.resolved": "Dispute resolved",
  "listing.claimed": "Bounty claimed",
  "listing.purchased": "Listing purchased",
  "review.received": "Review received",
  "message.received": "Message received",
  "wallet.withdrawal": "Withdrawal",
  "offer.received": "Offer received",
  "offer.countered": "Offer countered",
  "offer.accepted": "Offer accepted",
  "offer.declined": "Offer declined",
  "offer.withdrawn": "Offer withdrawn",
  "offer.expired": "Offer expired",
  "proposal.received": "Proposal received",
  "proposal.accepted": "Proposal accepted",
  "proposal.declined": "Proposal declined",
  "proposal.withdrawn": "Proposal withdrawn",
  "bounty.matching": "New bounty for you",
  "webhook.paused": "Webhook paused",
  "approval.requested": "Approval requested",
  "approval.approved": "Spending approved",
  "approval.declined": "Spending declined",
  "approval.failed": "Approved spending failed",
};

/** The agent's notifications, with new ones shown as the event stream delivers them. */
export function NotificationsPanel({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const client = agentClient(agentId);
  const listed = useQuery({
    queryKey: ownerKeys.notifications(agentId),
    queryFn: () => client.listNotifications({ limit: 30 }),
  });
  const [arrived, setArrived] = useState<Notification[]>([]);
  const live = useNotificationStream(agentId, (notification) =>
    setArrived((earlier) => [notification, ...earlier.filter((item) => item.id !== notification.id)]),
  );

  const markRead = useMutation({
    mutationFn: (ids: string[] | "all") =>
      client.markNotificationsRead(ids === "all" ? { all: true } : { notification_ids: ids }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ownerKeys.notifications(agentId) }),
  });

  return (
    <section aria-labelledby="notifications-heading">
      <h2 id="notifications-heading">Notifications</h2>
      <p>
        <small>{STREAM_STATE_TEXT[live]}</small> {listed.data && <>{listed.data.unread_count} unread </>}
        <button
          type="button"
          className="secondary outline"
          disabled={markRead.isPending || listed.data?.unread_count === 0}
          onClick={() => markRead.mutate("all")}
        >
          Mark all read
        </button>
      </p>
      {markRead.isError && <ErrorNote error={markRead.error} />}
      <Loaded query={listed} label="Loading notifications…">
        {(page) => {
          const fetched = new Map(page.notifications.map((item) => [item.id, item]));
          const all = [...arrived.filter((item) => !fetched.has(item.id)), ...page.notifications].sort((a, b) =>
            b.created_at.localeCompare(a.created_at),
          );
          return (
            <ul aria-live="polite" className="notifications">
              {all.length === 0 && (
                <li>
                  <Empty>No notifications yet.</Empty>
                </li>
              )}
              {all.map((item) => (
                <li key={item.id} data-testid="notification" className={item.read_at ? "read" : "unread"}>
                  <NotificationText item={item} agentId={agentId} />{" "}
                  <small>
                    <Time iso={item.created_at} /> · {item.read_at ? "read" : "unread"}
                  </small>
                  {!item.read_at && (
                    <button
                      type="button"
                      className="secondary outline small"
                      onClick={() => markRead.mutate([item.id])}
                      aria-label={`Mark read: ${KIND_TEXT[item.kind] ?? item.kind}`}
                    >
                      Mark read
                    </button>
                  )}
                </li>
              ))}
            </ul>
          );
        }}
      </Loaded>
    </section>
  );
}

function NotificationText({ item, agentId }: { item: Notification; agentId: string }) {
  const payload = item.payload as { transaction_id?: string; listing?: { title?: string }; content?: string };
  return (
    <span>
      <strong>{KIND_TEXT[item.kind] ?? item.kind}</strong>
      {payload.listing?.title && <> · {payload.listing.title}</>}
      {payload.transaction_id && (
        <>
          {" "}
          · <Link href={`/owner/transactions/${payload.transaction_id}?agent=${agentId}`}>open the transaction</Link>
        </>
      )}
    </span>
  );
}
