/**
 * What the browser tests share about people in the page: signing in through it with the injected
 * wallet, and reading the exact amounts it shows. The dev accounts, sessions of programs and USDC
 * on chain are in e2e/dev-accounts.ts.
 */
import type { Page } from "playwright-core";
import { expect } from "vitest";

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

/** The exact wei an amount on the page stands for (its `data-wei`; people read USDC, the exact figure on hover). */
export async function weiShown(page: Page, testId: string): Promise<bigint> {
  const wei = await page.getByTestId(testId).locator(".amount").first().getAttribute("data-wei");
  return BigInt(wei ?? "-1");
}
