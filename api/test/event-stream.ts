/** One Server-Sent Event. */
export interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads a text/event-stream body event by event (comment lines skipped), for tests of the
 * notification stream in-process and over HTTP.
 */
export function eventStreamReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const queue: StreamEvent[] = [];

  function parse(): void {
    const blocks = buffer.split("\n\n");
    buffer = blocks.pop() ?? "";
    for (const block of blocks) {
      const fields = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
      if (fields.length === 0) continue;
      const value = (name: string) =>
        fields
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trimStart();
      queue.push({ event: value("event") ?? "message", id: value("id"), data: value("data") ?? "" });
    }
  }

  return {
    /** The next event; rejects with "no event in time" after `ms`. */
    async next(ms = 5_000): Promise<StreamEvent> {
      const deadline = Date.now() + ms;
      for (;;) {
        parse();
        const event = queue.shift();
        if (event) return event;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error("no event in time");
        let timer: NodeJS.Timeout | undefined;
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error("no event in time")), left);
          }),
        ]).finally(() => clearTimeout(timer));
        if (chunk.done) throw new Error("stream ended");
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => reader.cancel().catch(() => {}),
  };
}
