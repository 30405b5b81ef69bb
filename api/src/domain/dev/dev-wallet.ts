import { LOCAL_CHAIN_ID } from "@agent-marketplace/contracts";
import { privateKeyToAccount } from "viem/accounts";
import { nodeRpc } from "../../chain/node-rpc.ts";
import type { Deps } from "../../deps.ts";

/*
 * The dev wallet of the local chain: a browser without a wallet extension signs with the Hardhat
 * node's unlocked dev accounts, through /api/dev/rpc, so no private key ever reaches the page. Only
 * the calls a wallet and a dapp make pass (reading the chain, signing, sending); the node's own
 * methods (hardhat_*, evm_*, ...) do not, and the service's own senders (relayer, arbiter) cannot be
 * made to send: their nonces are the service's to keep.
 */

/** What passes, by the name the page sends; eth_requestAccounts is answered as eth_accounts. */
export const DEV_RPC_METHODS = [
  "eth_chainId",
  "eth_accounts",
  "eth_requestAccounts",
  "personal_sign",
  "eth_signTypedData_v4",
  "eth_sendTransaction",
  "eth_call",
  "eth_getBalance",
  "eth_blockNumber",
  "eth_getTransactionReceipt",
  "eth_getTransactionByHash",
  "eth_estimateGas",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_getTransactionCount",
  "eth_getCode",
  "eth_getBlockByNumber",
  "net_version",
] as const;

const ALLOWED = new Set<string>(DEV_RPC_METHODS);

/** JSON-RPC 2.0: the method does not exist (here: is not offered). */
export const METHOD_NOT_FOUND = -32601;
/** JSON-RPC 2.0: invalid method parameters. */
export const INVALID_PARAMS = -32602;
/** EIP-1193: the method or account has not been authorized. */
export const UNAUTHORIZED = 4100;

export interface DevRpcRequest {
  id: string | number | null;
  method: string;
  params?: unknown;
}

export interface DevRpcAnswer {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export function devWalletUseCases(deps: Pick<Deps, "chain" | "config">) {
  const { chain, config } = deps;
  if (chain.chainId !== LOCAL_CHAIN_ID) return { rpc: undefined };
  const send = nodeRpc(config.rpcUrl);
  const serviceSenders = new Set(
    [config.relayerPrivateKey, config.arbiter?.privateKey]
      .filter((key) => key !== undefined)
      .map((key) => privateKeyToAccount(key).address.toLowerCase()),
  );
  const refusal = (id: DevRpcRequest["id"], code: number, message: string): DevRpcAnswer => ({
    jsonrpc: "2.0",
    id,
    error: { code, message },
  });

  /** One JSON-RPC request, forwarded to the node if it may pass; the node's answer, or a refusal. */
  async function rpc({ id, method, params }: DevRpcRequest): Promise<DevRpcAnswer> {
    if (!ALLOWED.has(method)) return refusal(id, METHOD_NOT_FOUND, `The dev wallet does not offer ${method}`);
    if (method === "eth_sendTransaction") {
      const from = Array.isArray(params) ? (params[0] as { from?: unknown } | undefined)?.from : undefined;
      // Without a from, the node would pick a sender itself: a wallet always names one.
      if (typeof from !== "string") return refusal(id, INVALID_PARAMS, "eth_sendTransaction needs the from address");
      if (serviceSenders.has(from.toLowerCase())) {
        return refusal(id, UNAUTHORIZED, "This account sends the service's own transactions: use another dev account");
      }
    }
    const answer = await send(method === "eth_requestAccounts" ? "eth_accounts" : method, params ?? []);
    // The node numbered the call itself: the answer carries the caller's id back.
    return { ...answer, jsonrpc: "2.0", id } as DevRpcAnswer;
  }

  return { rpc };
}

export type DevWalletUseCases = ReturnType<typeof devWalletUseCases>;
