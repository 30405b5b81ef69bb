import { getAddress } from "viem";

/*
 * The "dev wallet" of the local chain (31337): an EIP-1193 provider whose requests go to the API's
 * /api/dev/rpc, which forwards an allowlist of methods to the Hardhat node. The node's dev accounts
 * are unlocked, so the node signs: no key ever reaches the browser. The person picks which of the
 * node's accounts to be; that account is the only one this provider answers.
 */

type Listener = (...args: unknown[]) => void;

export interface RpcError extends Error {
  code: number;
  data?: unknown;
}

export interface DevWallet {
  provider: {
    request(args: { method: string; params?: unknown }): Promise<unknown>;
    on(event: string, listener: Listener): void;
    removeListener(event: string, listener: Listener): void;
  };
  /** The node's accounts (eth_accounts). */
  nodeAccounts(): Promise<string[]>;
  /** Be this account from now on. */
  chooseAccount(address: string): void;
}

export function createDevWallet(rpcUrl: string): DevWallet {
  let account: string | undefined;
  let nextId = 1;
  const listeners = new Map<string, Set<Listener>>();
  const emit = (event: string, ...args: unknown[]) => {
    for (const listener of listeners.get(event) ?? []) listener(...args);
  };

  async function rpc(method: string, params: unknown = []): Promise<unknown> {
    // No cookie: the dev RPC needs no session, and a cookie would make this POST a CSRF case.
    const response = await fetch(rpcUrl, {
      method: "POST",
      credentials: "omit",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
    });
    const answer = (await response.json().catch(() => undefined)) as
      | { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      | undefined;
    if (!answer) throw rpcError(-32603, `The dev wallet's RPC answered ${response.status}`);
    if (answer.error) throw rpcError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  }

  async function accounts(): Promise<string[]> {
    if (!account) account = ((await rpc("eth_accounts")) as string[])[0];
    return account ? [account] : [];
  }

  return {
    provider: {
      async request({ method, params }) {
        switch (method) {
          case "eth_accounts":
          case "eth_requestAccounts":
            return accounts();
          // One chain, and the node's accounts need no permission: nothing to switch or grant.
          case "wallet_switchEthereumChain":
          case "wallet_addEthereumChain":
          case "wallet_revokePermissions":
            return null;
          case "wallet_requestPermissions":
          case "wallet_getPermissions":
            return [{ parentCapability: "eth_accounts" }];
          default:
            return rpc(method, params);
        }
      },
      on(event, listener) {
        const set = listeners.get(event) ?? new Set();
        set.add(listener);
        listeners.set(event, set);
      },
      removeListener(event, listener) {
        listeners.get(event)?.delete(listener);
      },
    },
    nodeAccounts: async () => (await rpc("eth_accounts")) as string[],
    chooseAccount(address) {
      if (address === account) return;
      account = address;
      emit("accountsChanged", [address]);
    },
  };
}

function checksummed(address: string): string {
  try {
    return getAddress(address);
  } catch {
    return address;
  }
}

function rpcError(code: number, message: string, data?: unknown): RpcError {
  return Object.assign(new Error(message), { code, data });
}

export const devWallet = createDevWallet(`${location.origin}/api/dev/rpc`);

/**
 * The query of the node's accounts (eth_accounts, checksummed once here: the node answers them in
 * lower case): the sign-in button prefetches it, the dialog reads it.
 */
export const devAccountsQuery = {
  queryKey: ["dev-wallet", "accounts"] as const,
  queryFn: async () => (await devWallet.nodeAccounts()).map(checksummed),
  // The node's accounts do not change while it runs.
  staleTime: 60_000,
};
