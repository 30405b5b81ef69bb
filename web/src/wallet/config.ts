import { type Chain, defineChain, type EIP1193Provider } from "viem";
import { base, baseSepolia } from "viem/chains";
import { type Config, createConfig, http, injected } from "wagmi";
import { LOCAL_CHAIN_ID } from "../lib/platform-info.ts";
import { devWallet } from "./dev-wallet.ts";

/*
 * wagmi's one config (per chain id, which comes from the API's /api/info): the browser wallet
 * (injected), plus the dev wallet on the local chain. Nothing is stored: no connection state in
 * localStorage, a person connects again after a reload (the session is the cookie's).
 */

const devRpcUrl = () => `${location.origin}/api/dev/rpc`;

export function chainOf(chainId: number): Chain {
  if (chainId === base.id) return base;
  if (chainId === baseSepolia.id) return baseSepolia;
  return defineChain({
    id: chainId,
    name: chainId === LOCAL_CHAIN_ID ? "Local chain" : `Chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: chainId === LOCAL_CHAIN_ID ? [devRpcUrl()] : [] } },
  });
}

export const BROWSER_WALLET_ID = "injected";
export const DEV_WALLET_ID = "devWallet";

const configs = new Map<number, Config>();

export function walletConfig(chainId: number): Config {
  let config = configs.get(chainId);
  if (config) return config;
  const chain = chainOf(chainId);
  const local = chainId === LOCAL_CHAIN_ID;
  config = createConfig({
    chains: [chain],
    connectors: [
      injected({ shimDisconnect: false }),
      ...(local
        ? [
            injected({
              shimDisconnect: false,
              target: () => ({
                id: DEV_WALLET_ID,
                name: "Dev wallet",
                provider: devWallet.provider as unknown as EIP1193Provider,
              }),
            }),
          ]
        : []),
    ],
    transports: {
      [chain.id]: local ? http(devRpcUrl(), { fetchOptions: { credentials: "omit" } }) : http(),
    },
    storage: null,
    multiInjectedProviderDiscovery: false,
  });
  configs.set(chainId, config);
  return config;
}
