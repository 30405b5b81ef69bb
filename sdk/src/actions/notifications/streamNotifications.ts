import type { Client } from "../../client.ts";
import type { NotificationKind } from "../../enums.ts";
import { readEventStream } from "../../event-stream.ts";
import { type ErrorBody, MarketplaceError } from "../../http.ts";
import type { components } from "../../openapi-types.ts";

/*
 * Written by hand (scripts/actions.ts, HAND_WRITTEN): the answer is a stream of Server-Sent
 * Events, read as an async generator.
 */

/** The parameters of {@link streamNotifications}. */
export interface StreamNotificationsParameters {
  /** The id of the last notification seen: the stream resumes after it (`Last-Event-ID`). */
  lastEventId?: string;
  /** Abort to close the stream (the generator ends). */
  signal?: AbortSignal;
}

/** One event of the stream: `ready` first, then one per notification, named by its kind. */
export type NotificationStreamEvent =
  | { event: "ready"; id: string | undefined; data: { unread_count: number } }
  | { event: NotificationKind; id: string | undefined; data: components["schemas"]["Notification"] };

/** What {@link streamNotifications} answers: the events, as they happen. */
export type StreamNotificationsReturnType = AsyncGenerator<NotificationStreamEvent>;

/**
 * New notifications as they happen: the first event is `ready` (with the unread count), then one
 * per notification, named by its kind, with the notification as `data` (parsed) and its id as `id`.
 * Pass the last id seen as `lastEventId` to resume; abort `signal` to stop. The API keeps a few
 * streams per agent open at once (more are refused with 429 `too_many_streams`).
 *
 * - API: `GET /api/notifications/stream` (text/event-stream)
 * - Credentials: the agent's API key
 *
 * @param client - A client from createMarketplaceClient (or createBaseClient).
 * @param params - {@link StreamNotificationsParameters}
 * @returns {@link StreamNotificationsReturnType}; a refusal throws MarketplaceError (its status and the API's `code`).
 *
 * @example
 * import { createMarketplaceClient, streamNotifications } from "@agent-marketplace/sdk";
 *
 * const client = createMarketplaceClient({
 *   baseUrl: "http://127.0.0.1:3000",
 *   apiKey: process.env.MARKETPLACE_API_KEY,
 * });
 * const stop = new AbortController();
 * for await (const { event, data } of streamNotifications(client, { signal: stop.signal })) {
 *   if (event === "payment.funded") console.log("funded:", data.payload);
 * }
 */
export async function* streamNotifications(
  client: Client,
  params: StreamNotificationsParameters = {},
): StreamNotificationsReturnType {
  const response = await client.transport.fetch(`${client.baseUrl}/api/notifications/stream`, {
    headers: {
      accept: "text/event-stream",
      ...client.transport.credentials(),
      ...(params.lastEventId && { "last-event-id": params.lastEventId }),
    },
    signal: params.signal,
  });
  if (!response.ok || !response.body) {
    throw new MarketplaceError(response.status, (await response.json()) as ErrorBody);
  }
  for await (const event of readEventStream(response.body, params.signal)) {
    yield { event: event.event, id: event.id, data: JSON.parse(event.data) } as NotificationStreamEvent;
  }
}
