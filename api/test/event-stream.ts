import { readEventStream, type ServerSentEvent } from "@agent-marketplace/sdk";

export type StreamEvent = ServerSentEvent;

/**
 * The events of a text/event-stream body one at a time, each awaited for at most `ms` (the SDK's
 * reader, with a deadline for tests).
 */
export function eventStreamReader(body: ReadableStream<Uint8Array>) {
  const stop = new AbortController();
  const events = readEventStream(body, stop.signal);
  return {
    /** The next event; rejects with "no event in time" after `ms`, "stream ended" at its end. */
    async next(ms = 5_000): Promise<StreamEvent> {
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        events.next(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("no event in time")), ms);
        }),
      ]).finally(() => clearTimeout(timer));
      if (result.done) throw new Error("stream ended");
      return result.value;
    },
    /** Ends the stream, also while a `next` is still waiting. */
    close: async () => {
      stop.abort();
      await events.return(undefined);
    },
  };
}
