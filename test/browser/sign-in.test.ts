/**
 * Signing in and the key reveal, as a person meets them in a real Chromium without a browser
 * wallet: the sign-in dialog keeps the keyboard inside it and gives the focus back on Escape, names
 * the local node's accounts (a person by default, the platform's role accounts by their roles), and
 * signs in with the dev wallet (the node's account 11). A new API key is shown in a dialog that
 * stays until the owner says they saved it, then the next steps. And the app's files arrive
 * compressed.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { devAddress } from "../e2e/dev-accounts.ts";
import { checkPage, freshPage, launchBrowser, problemsOf } from "./browser.ts";

const { apiUrl } = inject("sharedStack");
const PERSON = 11;
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** Whether the focused element is inside the open dialog. */
const focusInDialog = (page: Page) =>
  page.evaluate(() => {
    const dialog = document.querySelector("dialog[open]");
    return dialog !== null && document.activeElement !== null && dialog.contains(document.activeElement);
  });

/** Presses Tab (or Shift+Tab) `times` times; every time the focus must stay inside the dialog. */
async function tabAround(page: Page, times: number, key = "Tab") {
  for (let press = 0; press < times; press++) {
    await page.keyboard.press(key);
    expect(await focusInDialog(page), `${key} press ${press + 1}`).toBe(true);
  }
}

/** Whether the whole element is within the window. */
async function inViewport(page: Page, testId: string): Promise<boolean> {
  return page.getByTestId(testId).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
  });
}

async function openSignIn(page: Page) {
  await page.getByRole("button", { name: "Sign in", exact: true }).first().click();
  const dialog = page.getByRole("dialog", { name: "Sign in" });
  await expect.poll(() => dialog.getByLabel("Dev account").isEnabled(), { timeout: 20_000 }).toBe(true);
  return dialog;
}

describe("signing in", () => {
  it("the dialog keeps the focus, names the dev accounts with a person first, and Escape gives the focus back", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    await page.goto("/marketplace");
    const dialog = await openSignIn(page);
    expect(await page.locator("dialog[open]").count(), "one dialog, no second one for loading").toBe(1);

    // A person is offered, never the platform's own accounts; those are named for their roles.
    const select = dialog.getByLabel("Dev account");
    const chosen = await select.evaluate((element: HTMLSelectElement) => element.selectedOptions[0]?.textContent ?? "");
    expect(chosen).toMatch(/^Person 1 \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)$/);
    const options = await select.locator("option").allTextContents();
    expect(options).toHaveLength(20);
    expect(options.slice(0, 17).every((text) => text.startsWith("Person "))).toBe(true);
    expect(options.slice(17).map((text) => text.replace(/ \(0x[^)]*\)$/, ""))).toEqual([
      "Platform owner & fee recipient",
      "Arbiter",
      "Operator (service relayer)",
    ]);
    expect(await dialog.getByRole("button", { name: "Sign in as Person 1", exact: true }).isEnabled()).toBe(true);
    await checkPage(page, "sign-in-dialog");

    // The keyboard stays inside, both ways.
    expect(await focusInDialog(page)).toBe(true);
    await tabAround(page, 15);
    await tabAround(page, 5, "Shift+Tab");

    // Escape closes it and the focus is back on the button that opened it.
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("dialog[open]").count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Sign in");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("at phone width the dialog fits and passes the same checks", async () => {
    const { page, context } = await freshPage(browser, apiUrl, { mobile: true });
    await page.goto("/owner");
    const dialog = await openSignIn(page);
    const box = await dialog.locator("article").boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    await checkPage(page, "sign-in-dialog-mobile");
    await tabAround(page, 10);
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => page.locator("dialog[open]").count()).toBe(0);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("signs in with the dev wallet as a person; a new key stays on screen until the owner saved it", async () => {
    const { page, context } = await freshPage(browser, apiUrl);
    await page.goto("/owner");
    const dialog = await openSignIn(page);
    await dialog.getByLabel("Dev account").selectOption(devAddress(PERSON));
    await dialog.getByRole("button", { name: `Sign in as Person ${PERSON - 2}`, exact: true }).click();
    await expect.poll(() => page.getByText("Signed in as").count(), { timeout: 20_000 }).toBe(1);
    const session = await page.evaluate(() => fetch("/api/auth/session").then((response) => response.json()));
    expect(session.address.toLowerCase()).toBe(devAddress(PERSON).toLowerCase());

    const create = page.getByRole("region", { name: "Create a hosted agent" });
    await create.getByLabel("Name").fill("careful-keeper");
    await create.getByRole("button", { name: "Create hosted agent" }).click();
    const reveal = page.getByRole("dialog", { name: "The API key of careful-keeper" });
    await expect.poll(() => reveal.count(), { timeout: 20_000 }).toBe(1);
    expect(await inViewport(page, "new-api-key")).toBe(true);
    // The warning is said once.
    const text = (await page.locator("body").textContent()) ?? "";
    expect(text.match(/shown once/g)).toHaveLength(1);
    await checkPage(page, "new-key-dialog");

    // It cannot be dismissed before the owner confirms: not by Escape, and Done waits for the box.
    const done = reveal.getByRole("button", { name: "Done" });
    expect(await done.isDisabled()).toBe(true);
    await page.keyboard.press("Escape");
    expect(await reveal.isVisible()).toBe(true);
    await tabAround(page, 8);
    await reveal.getByLabel("I have saved this key").check();
    expect(await done.isEnabled()).toBe(true);

    // At phone width the key is still in view.
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await inViewport(page, "new-api-key")).toBe(true);
    await checkPage(page, "new-key-dialog-mobile");
    await page.setViewportSize({ width: 1280, height: 800 });

    await done.click();
    await expect.poll(() => page.locator("dialog[open]").count()).toBe(0);
    expect(await page.getByTestId("new-api-key").count(), "the key is gone from the page").toBe(0);

    // Then what to do next: test USDC (local chain), sell from the agent's page, or buy.
    const next = page.getByTestId("next-steps");
    expect(await next.getByRole("button", { name: "Get test USDC" }).count()).toBe(1);
    expect(await next.getByRole("link", { name: /post a listing or a bounty/ }).getAttribute("href")).toMatch(
      /^\/owner\/agents\/[0-9a-f-]{36}$/,
    );
    expect(await next.getByRole("link", { name: /marketplace/ }).getAttribute("href")).toBe("/marketplace");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain("careful-keeper is ready");
    await checkPage(page, "new-key-next-steps");

    // A key issued later from the agent's card is revealed the same way.
    const card = page.getByTestId("owned-agent").filter({ hasText: "careful-keeper" });
    await card.getByText("API keys").click();
    await card.getByRole("button", { name: "Issue key" }).click();
    const again = page.getByRole("dialog", { name: "The API key of careful-keeper" });
    await expect.poll(() => again.count(), { timeout: 20_000 }).toBe(1);
    await page.keyboard.press("Escape");
    expect(await again.isVisible()).toBe(true);
    await again.getByLabel("I have saved this key").check();
    await again.getByRole("button", { name: "Done" }).click();
    await expect.poll(() => page.locator("dialog[open]").count()).toBe(0);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });
});

describe("the app's files", () => {
  it("arrive compressed: br for a client that takes it, gzip for one that takes only gzip", async () => {
    const index = await (await fetch(`${apiUrl}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    expect(script).toBeDefined();
    for (const [accept, encoding] of [
      ["br, gzip", "br"],
      ["gzip", "gzip"],
    ]) {
      // Node's fetch decodes the body; the headers still say how it travelled.
      const response = await fetch(`${apiUrl}${script}`, { headers: { "accept-encoding": accept as string } });
      expect(response.headers.get("content-encoding"), accept).toBe(encoding);
      expect(response.headers.get("vary"), accept).toBe("Accept-Encoding");
      expect(response.headers.get("content-type"), accept).toMatch(/^text\/javascript/);
      expect((await response.text()).length, accept).toBeGreaterThan(10_000);
    }

    // The browser itself asked for it so, and got fewer bytes than it ran.
    const { page, context } = await freshPage(browser, apiUrl);
    const loaded = page.waitForResponse((response) => response.url().endsWith(script as string));
    await page.goto("/marketplace");
    const response = await loaded;
    expect(response.headers()["content-encoding"]).toBe("br");
    const { responseBodySize } = await response.request().sizes();
    expect(responseBodySize).toBeLessThan((await response.body()).length / 2);
    await context.close();
  });
});
