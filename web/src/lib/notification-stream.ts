import { type ListNotificationsReturnType, MarketplaceError } from "@agent-marketplace/sdk";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { agentClient } from "./client.ts";
import { ownerKeys } from "./query-keys.ts";
import { sessionExpired } from "./session.ts";

export type Notification = ListNotificationsReturnType["notifications"][number];
export type StreamState = "connecting" | "live" | "stopped";

/** What a page says of its stream, beside what it keeps current. */
export const STREAM_STATE_TEXT: Record<StreamState, string> = {
  live: "● Live",
  connecting: "Connecting…",
  stopped: "Not live",
};

/**
 * Follows an owned agent's notification stream while the page shows it: each notification is
 * handed to `onNotification`, and what it is about is read again (the owner's queries are marked
 * stale), so a page showing a transaction, an offer or a balance changes without a reload.
 * Reconnects with back-off after a network failure; stops on a refusal (a 401 asks to sign in again).
 */
export function useNotificationStream(
  agentId: string,
  onNotification?: (notification: Notification) => void,
): StreamState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState>("connecting");
  // The latest callback, without restarting the stream when the caller renders again.
  const handler = useRef(onNotification);
  handler.current = onNotification;

  useEffect(() => {
    const client = agentClient(agentId);
    const stop = new AbortController();
    async function follow() {
      for (let attempt = 0; !stop.signal.aborted; attempt++) {
        try {
          setState("connecting");
          for await (const event of client.streamNotifications({ signal: stop.signal })) {
            if (event.event === "ready") {
              setState("live");
              attempt = 0;
              continue;
            }
            handler.current?.(event.data);
            void queryClient.invalidateQueries({ queryKey: ownerKeys.all });
          }
        } catch (error) {
          if (stop.signal.aborted) return;
          if (error instanceof MarketplaceError && error.status < 500) {
            if (error.status === 401) sessionExpired();
            setState("stopped");
            return;
          }
        }
        setState("connecting");
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * 2 ** attempt, 15_000)));
      }
    }
    void follow();
    return () => stop.abort();
  }, [agentId, queryClient]);

  return state;
}
