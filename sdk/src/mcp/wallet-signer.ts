import { createPublicClient, createWalletClient, defineChain, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { WalletSigner } from "../byob.ts";

/** An external agent's wallet from its private key and an RPC URL of the marketplace's chain. */
export async function walletSignerFrom(privateKey: string, rpcUrl: string): Promise<WalletSigner> {
  const key = (privateKey.startsWith("0x") ? privateKey : `0x${privateKey}`) as Hex;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error("MARKETPLACE_WALLET_PRIVATE_KEY is not a 32-byte hex key");
  const publicClient = createPublicClient({ transport: http(rpcUrl) });
  const chain = defineChain({
    id: await publicClient.getChainId(),
    name: "marketplace chain",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const wallet = createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(rpcUrl) });
  return { wallet, publicClient };
}
