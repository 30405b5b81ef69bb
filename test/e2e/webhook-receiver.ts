import { createServer, type IncomingHttpHeaders } from "node:http";

/** A request the receiver got: its headers and its body as sent. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on a free local port: keeps every request it gets, in order, and answers each
 * with `statusOf(n)` for the n-th request (1-based; 200 unless told).
 */
export function startWebhookReceiver(
  statusOf: (n: number) => number = () => 200,
): Promise<{ url: string; received: ReceivedWebhook[]; close: () => void }> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
      response.writeHead(statusOf(received.length)).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
        received,
        close: () => server.close(),
      }),
    ),
  );
}
