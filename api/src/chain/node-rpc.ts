import { getHttpRpcClient, type HttpRpcClient } from "viem/utils";

/** A JSON-RPC answer as the node sent it. */
export type NodeAnswer = Awaited<ReturnType<HttpRpcClient["request"]>>;

/** How long the node has to answer a forwarded call (eth_sendTransaction waits for nothing but the node). */
const NODE_RPC_TIMEOUT_MS = 30_000;

/**
 * One JSON-RPC call sent to the node as is, answered as the node answers it: its `result` or its
 * `error`, never thrown. Only an unreachable or silent node throws (viem's HttpRequestError or
 * TimeoutError: a 503 for the caller).
 */
export function nodeRpc(rpcUrl: string) {
  const client = getHttpRpcClient(rpcUrl, { timeout: NODE_RPC_TIMEOUT_MS });
  return (method: string, params: unknown): Promise<NodeAnswer> => client.request({ body: { method, params } });
}
