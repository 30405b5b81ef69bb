/** One Server-Sent Event: its name, id and data (as sent, a string). */
export interface ServerSentEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * The events of a text/event-stream body, as they arrive (comment lines skipped); ends when the
 * body ends or `signal` aborts (even while waiting for the next event).
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  if (signal?.aborted) stop();
  signal?.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const blocks = buffer.split("\n\n");
      buffer = blocks.pop() ?? "";
      for (const block of blocks) {
        const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
        if (lines.length === 0) continue;
        const field = (name: string) =>
          lines
            .find((line) => line.startsWith(`${name}:`))
            ?.slice(name.length + 1)
            // The specification strips one space after the colon, no more.
            .replace(/^ /, "");
        yield { event: field("event") ?? "message", id: field("id"), data: field("data") ?? "" };
      }
    }
  } finally {
    signal?.removeEventListener("abort", stop);
    await reader.cancel().catch(() => {});
  }
}
