/**
 * What the browser tests share about people: the node's dev accounts (which file uses which is
 * listed in e2e/shared-stack.setup.ts), signing in through the page, and reading USDC on chain.
 */
import { readDeployment } from "@agent-marketplace/contracts";
import { createMarketplaceClient, type MarketplaceClient } from "@agent-marketplace/sdk";
import type { Page } from "playwright-core";
import { type Address, createPublicClient, erc20Abi, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { expect } from "vitest";
import type { StackEnv } from "../e2e/stack-process.ts";

const MNEMONIC = "test test test test test test test test test test test junk";

/** The address of the node's dev account `index`. */
export const devAddress = (index: number): Address => mnemonicToAccount(MNEMONIC, { addressIndex: index }).address;

export const rpcUrlOf = (env: StackEnv) => `http://127.0.0.1:${env.HARDHAT_PORT}`;

/** An SDK client signed in (Bearer session) as dev account `index`, as a program would be. */
export async function sessionClient(apiUrl: string, index: number): Promise<MarketplaceClient> {
  const account = mnemonicToAccount(MNEMONIC, { addressIndex: index });
  const client = createMarketplaceClient({ baseUrl: apiUrl });
  const { nonce } = await client.siweNonce();
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

/**
 * Signs in with the page's injected wallet ("Browser wallet"), from whatever page is open: the
 * dialog asks the wallet to sign as soon as it is connected on the marketplace's chain.
 */
export async function signInWithBrowserWallet(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign in", exact: true }).first().click();
  await page.getByRole("button", { name: "Browser wallet" }).click();
  // Polled on the whole text, so that a refusal shown instead is in the failure's message.
  await expect.poll(() => page.locator("body").textContent(), { timeout: 20_000 }).toContain("Signed in as");
}

/** The exact wei an amount on the page stands for (its hover title, "12500000 wei"). */
export async function weiShown(page: Page, testId: string): Promise<bigint> {
  const title = await page.getByTestId(testId).locator(".amount").first().getAttribute("title");
  return BigInt(title?.replace(/ wei$/, "") ?? "-1");
}
