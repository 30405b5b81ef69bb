/**
 * An injected wallet for the browser tests: `window.ethereum`, an EIP-1193 provider whose requests
 * the test process answers. Accounts and signatures are the Hardhat node's own (its dev accounts are
 * unlocked, so personal_sign, eth_signTypedData_v4 and eth_sendTransaction work as they are): the
 * wallet only says which account is connected and which chain it is on, and can be put on another
 * chain to see the app refuse it. This stands in for a browser extension, the outside world.
 */
import type { BrowserContext } from "playwright-core";
import type { Address } from "viem";

export interface WalletOptions {
  /** The node's JSON-RPC URL. */
  rpcUrl: string;
  /** The connected account: one of the node's dev accounts. */
  account: Address;
  /** The chain the wallet says it is on (the node's by default): another one is a wrong network. */
  chainId?: number;
}

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
}

async function forward(rpcUrl: string, method: string, params: unknown[]): Promise<RpcAnswer> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as RpcAnswer;
}

/** Gives every page of `context` the wallet before any of its scripts run. */
export async function installWallet(context: BrowserContext, options: WalletOptions): Promise<void> {
  let chainId = options.chainId ?? Number((await forward(options.rpcUrl, "eth_chainId", [])).result);
  await context.exposeFunction("__testWalletRequest", async (method: string, params: unknown[] = []) => {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return { result: [options.account] };
      case "eth_chainId":
        return { result: `0x${chainId.toString(16)}` };
      case "net_version":
        return { result: String(chainId) };
      case "wallet_switchEthereumChain": {
        const wanted = Number((params[0] as { chainId: string }).chainId);
        const node = Number((await forward(options.rpcUrl, "eth_chainId", [])).result);
        if (wanted !== node) return { error: { code: 4902, message: `Unrecognized chain ${wanted}` } };
        chainId = wanted;
        return { result: null, chainChanged: `0x${wanted.toString(16)}` };
      }
      case "wallet_requestPermissions":
      case "wallet_getPermissions":
        return { result: [{ parentCapability: "eth_accounts" }] };
      default:
        return forward(options.rpcUrl, method, params);
    }
  });
  await context.addInitScript(() => {
    type Listener = (...args: unknown[]) => void;
    const listeners = new Map<string, Set<Listener>>();
    const emit = (event: string, value: unknown) => {
      for (const listener of listeners.get(event) ?? []) listener(value);
    };
    const call = (window as unknown as Record<string, (m: string, p: unknown[]) => Promise<Record<string, unknown>>>)
      .__testWalletRequest as (m: string, p: unknown[]) => Promise<Record<string, unknown>>;
    const provider = {
      isMetaMask: false,
      async request({ method, params }: { method: string; params?: unknown[] }) {
        const answer = await call(method, params ?? []);
        if (answer.error) {
          const { code, message } = answer.error as { code: number; message: string };
          throw Object.assign(new Error(message), { code });
        }
        if (answer.chainChanged) emit("chainChanged", answer.chainChanged);
        if (method === "eth_requestAccounts")
          emit("connect", { chainId: await provider.request({ method: "eth_chainId" }) });
        return answer.result;
      },
      on(event: string, listener: Listener) {
        if (!listeners.has(event)) listeners.set(event, new Set());
        listeners.get(event)?.add(listener);
        return provider;
      },
      removeListener(event: string, listener: Listener) {
        listeners.get(event)?.delete(listener);
        return provider;
      },
    };
    Object.defineProperty(window, "ethereum", { value: provider, configurable: true });
  });
}
