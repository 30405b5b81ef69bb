import type { GetTimelineReturnType } from "@agent-marketplace/sdk";
import { Hex } from "./address.tsx";
import { Empty } from "./states.tsx";
import { Time } from "./time.tsx";

type TimelineEvent = GetTimelineReturnType["events"][number];

/** A transaction's events, on chain and off, in order. */
export function TxTimeline({ events }: { events: TimelineEvent[] }) {
  if (events.length === 0) return <Empty>No events yet.</Empty>;
  return (
    <ol className="timeline">
      {events.map((event) => (
        <li key={`${event.at}-${event.kind}-${event.tx_hash ?? ""}-${event.actor ?? ""}`}>
          <strong>{event.kind}</strong> <small>({event.source === "chain" ? "on chain" : "marketplace"})</small>{" "}
          <Time iso={event.at} />
          {event.actor && <> · by {event.actor}</>}
          {event.tx_hash && (
            <>
              {" "}
              · tx <Hex value={event.tx_hash} />
            </>
          )}
          {Object.keys(event.details).length > 0 && (
            <small className="details">
              {Object.entries(event.details)
                .map(([name, value]) => `${name}: ${value}`)
                .join(" · ")}
            </small>
          )}
        </li>
      ))}
    </ol>
  );
}
