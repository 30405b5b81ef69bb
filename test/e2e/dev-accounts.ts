/**
 * The local node's dev accounts (the mnemonic `test test … junk`), as the tests use them: which
 * file uses which is listed in shared-stack.setup.ts. An account signs in with Ethereum through the
 * SDK as a program would, and USDC is read from the chain.
 */
import { readDeployment } from "@agent-marketplace/contracts";
import { createMarketplaceClient, type MarketplaceClient } from "@agent-marketplace/sdk";
import { type Address, createPublicClient, erc20Abi, type HDAccount, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import type { StackEnv } from "./stack-process.ts";

const MNEMONIC = "test test test test test test test test test test test junk";

/** The node's dev account `index` (#0 owner, #1 arbiter, #2 operator of the local deployment). */
export const devAccount = (index: number): HDAccount => mnemonicToAccount(MNEMONIC, { addressIndex: index });

/** The address of the node's dev account `index`. */
export const devAddress = (index: number): Address => devAccount(index).address;

export const rpcUrlOf = (env: StackEnv) => `http://127.0.0.1:${env.HARDHAT_PORT}`;

/** An SDK client signed in (a Bearer session) as dev account `index`; it keeps the session. */
export async function sessionClient(apiUrl: string, index: number): Promise<MarketplaceClient> {
  const account = devAccount(index);
  const client = createMarketplaceClient({ baseUrl: apiUrl });
  const { nonce } = await client.getSiweNonce();
  const message = createSiweMessage({
    address: account.address,
    chainId: 31337,
    domain: new URL(apiUrl).host,
    nonce,
    uri: apiUrl,
    version: "1",
  });
  await client.login({ message, signature: await account.signMessage({ message }) });
  return client;
}

/** USDC of `address`, read from the chain. */
export function usdcOnChain(env: StackEnv, address: string): Promise<bigint> {
  const deployment = readDeployment(31337, env.DEPLOYMENTS_DIR);
  if (!deployment) throw new Error("no local deployment");
  const chain = createPublicClient({ transport: http(rpcUrlOf(env)) });
  return chain.readContract({
    address: deployment.contracts.USDC.address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address as Address],
  });
}
