/**
 * A real headless Chromium for the web app's tests: the one `@sparticuz/chromium` ships inside its
 * npm package (Playwright cannot download its own browser on offline machines), driven by
 * `playwright-core`. Each test opens a fresh context (no cookies, no storage) with, if asked, an
 * injected EIP-1193 wallet (wallet.ts). Every page a test visits can be checked with axe-core and
 * photographed into the test output folder.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import chromium from "@sparticuz/chromium";
import { type Browser, type BrowserContext, type Page, chromium as playwright } from "playwright-core";
import { expect } from "vitest";
import { repoRoot } from "../e2e/stack-process.ts";
import { installWallet, type WalletOptions } from "./wallet.ts";

/** Where screenshots go: one PNG per page and width, named by the test. */
export const SCREENSHOT_DIR = path.join(repoRoot, "test", "output", "screenshots");

/**
 * The package's flags are made for serverless functions; `--single-process` among them makes the
 * browser exit when a test closes its first context, so it is left out.
 */
export async function launchBrowser(): Promise<Browser> {
  const args = chromium.args.filter((arg) => arg !== "--single-process");
  return playwright.launch({ executablePath: await chromium.executablePath(), args, headless: true });
}

export interface Visit {
  context: BrowserContext;
  page: Page;
}

/** A fresh context at `apiUrl` (1280×800, or 375 wide with `mobile`), with an injected wallet if asked. */
export async function freshPage(
  browser: Browser,
  apiUrl: string,
  options: { wallet?: WalletOptions; mobile?: boolean } = {},
): Promise<Visit> {
  const context = await browser.newContext({
    baseURL: apiUrl,
    viewport: options.mobile ? { width: 375, height: 812 } : { width: 1280, height: 800 },
    // The owner's flow copies a new API key with the Copy button.
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    // A Content-Security-Policy refusal is an error in the console: the app must live within it.
    if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
      problems.push(`CSP: ${message.text()}`);
    }
    // Only React's development build says this: people must get the production build.
    if (/React DevTools/.test(message.text())) problems.push("React's development build is served");
  });
  (page as Page & { problems?: string[] }).problems = problems;
  if (options.wallet) await installWallet(context, options.wallet);
  return { context, page };
}

/** Script errors and CSP refusals the page met so far: a test ends by expecting none. */
export function problemsOf(page: Page): string[] {
  return (page as Page & { problems?: string[] }).problems ?? [];
}

/** Writes `<name>.png` (the whole page) under the test output folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // A whole page under a modal's blurred backdrop, on a loaded 2-core machine, can take well over
  // Playwright's default 30 s to render in software: a slow machine is not a failure of the page.
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true, timeout: 120_000 });
}

/**
 * The checks every page gets: no serious or critical accessibility violation (axe-core, WCAG 2 A
 * and AA rules), and a screenshot `<name>.png` under the test output folder.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const severe = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
  expect(severe, `accessibility of ${name}`).toEqual([]);
}
