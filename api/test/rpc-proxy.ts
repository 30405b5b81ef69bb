import { createServer, type ServerResponse } from "node:http";

/**
 * A JSON-RPC proxy between the API and the suite's node that injects the network's faults:
 * - `down`: every call answers HTTP 503 (the node or its provider is unavailable);
 * - `slow`: every call is forwarded after `delayMs`;
 * - `hold-broadcast`: eth_sendRawTransaction reaches the node, but its answer never comes back
 *   (the connection stays open until the proxy closes).
 * Apart from a fault, `setHeadAhead(n)` makes eth_blockNumber answer n blocks past the node's: the
 * chain as a node that is ahead of the indexer's sees it (the indexer lags by n blocks).
 */
export type RpcFault = "none" | "down" | "slow" | "hold-broadcast";

export async function startRpcProxy(target: string) {
  let fault: RpcFault = "none";
  let delayMs = 0;
  let broadcasts = 0;
  let headAhead = 0n;
  const held: ServerResponse[] = [];
  const forward = (body: string) =>
    fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const isBroadcast = body.includes("eth_sendRawTransaction");
    if (isBroadcast) broadcasts++;
    if (fault === "down") {
      response.writeHead(503, { "content-type": "text/plain" }).end("injected: node unavailable");
      return;
    }
    if (fault === "slow") await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (fault === "hold-broadcast" && isBroadcast) {
      await forward(body);
      held.push(response);
      return;
    }
    const answer = await forward(body);
    const text = await answer.text();
    response
      .writeHead(answer.status, { "content-type": "application/json" })
      .end(headAhead > 0n && answer.ok ? blockNumbersAhead(body, text, headAhead) : text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    setFault(next: RpcFault, options: { delayMs?: number } = {}) {
      fault = next;
      delayMs = options.delayMs ?? 0;
    },
    /** eth_blockNumber answers `blocks` past the node's head from now on (0: as the node answers). */
    setHeadAhead(blocks: number) {
      headAhead = BigInt(blocks);
    },
    /** eth_sendRawTransaction calls seen, whatever became of them. */
    get broadcasts() {
      return broadcasts;
    },
    close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface JsonRpcMessage {
  id?: unknown;
  method?: string;
  result?: unknown;
}

/** The node's answer `text` to `body` (one call or a batch), its eth_blockNumber results `ahead` blocks later. */
function blockNumbersAhead(body: string, text: string, ahead: bigint): string {
  const calls = [JSON.parse(body) as JsonRpcMessage | JsonRpcMessage[]].flat();
  const ids = new Set(calls.filter((call) => call.method === "eth_blockNumber").map((call) => call.id));
  if (ids.size === 0) return text;
  const answer = JSON.parse(text) as JsonRpcMessage | JsonRpcMessage[];
  for (const message of [answer].flat()) {
    if (ids.has(message.id) && typeof message.result === "string") {
      message.result = `0x${(BigInt(message.result) + ahead).toString(16)}`;
    }
  }
  return JSON.stringify(answer);
}
