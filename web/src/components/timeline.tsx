import type { GetTimelineReturnType } from "@agent-marketplace/sdk";
import { actorWords, eventFacts, eventTitle } from "../lib/transaction-words.ts";
import { Empty } from "./states.tsx";
import { Time } from "./time.tsx";
import { Usdc } from "./usdc.tsx";

type TimelineEvent = GetTimelineReturnType["events"][number];

/**
 * A transaction's events, on chain and off, in the order the API gives (the order they happened):
 * what happened, who did it (by name or role) and what moved, in USDC. Addresses and hashes only
 * in each event's "details" disclosure.
 */
export function TxTimeline({ events }: { events: TimelineEvent[] }) {
  if (events.length === 0) return <Empty>No events yet.</Empty>;
  return (
    <ol className="timeline">
      {events.map((event) => {
        const actor = actorWords(event);
        const { shown, raw } = eventFacts(event);
        return (
          <li key={eventKey(event)} data-testid="timeline-event">
            <strong>{eventTitle(event)}</strong> <Time iso={event.at} />
            {actor && <> · by {actor}</>} <small>({event.source === "chain" ? "on chain" : "marketplace"})</small>
            {shown.length > 0 && (
              <dl className="event-facts">
                {shown.map((fact) => (
                  <div key={fact.label}>
                    <dt>{fact.label}</dt>
                    <dd>
                      {fact.wei !== undefined ? (
                        <Usdc wei={fact.wei} />
                      ) : fact.href ? (
                        <a href={fact.href} rel="noopener noreferrer nofollow">
                          {fact.text}
                        </a>
                      ) : (
                        fact.text
                      )}
                    </dd>
                  </div>
                ))}
              </dl>
            )}
            {raw.length > 0 && (
              <details className="event-raw">
                <summary>Details</summary>
                <dl>
                  {raw.map((item) => (
                    <div key={item.label}>
                      <dt>{item.label}</dt>
                      <dd>
                        <code>{item.value}</code>
                      </dd>
                    </div>
                  ))}
                </dl>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}

/** What tells an event apart: its chain transaction, or the record it is (an item of evidence, a delivered work). */
function eventKey(event: TimelineEvent): string {
  const record = event.details.evidence_id ?? event.details.deliverable_hash ?? "";
  return `${event.source}-${event.kind}-${event.tx_hash ?? ""}-${record}-${event.at}`;
}
