/**
 * One `pnpm start` for the end-to-end files that only use the stack (money, notifications, sdk,
 * mcp): started once before them and stopped after all, instead of once per file. The files that
 * stop, pause or restart a stack (start, faults) bring up their own.
 *
 * Dev accounts with USDC (0 to 9; 0 deploys, 1 arbitrates, 2 relays) belong to one file each: mcp
 * 3, sdk 4 and 9, money 5 to 8; people signs in with 1 (the arbiter), 10 and 11 (no USDC; the
 * browser's sign-in story signs in as 11 too); mcp names 16 as an owner, and the browser's spending caps
 * story signs in as 16.
 */
import { rmSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { killStack, newStackEnv, type StackEnv, startStackProcess } from "./stack-process.ts";

/** What the shared stack runs with: the union of what its files need. */
const SHARED_SETTINGS = {
  // Every agent of a file registers from one address: more than the default hourly allowance.
  REGISTRATIONS_PER_HOUR: "10000",
  // Auto-release and deadline moves are seen within a second.
  KEEPER_INTERVAL_MS: "500",
  // Webhook retries and notifications come quickly enough to be awaited.
  WEBHOOK_RETRY_BASE_MS: "300",
  NOTIFY_INTERVAL_MS: "200",
};

export default async function setup(project: TestProject) {
  const { dir, env } = await newStackEnv("e2e-shared-");
  const stack = startStackProcess({ ...env, ...SHARED_SETTINGS });
  try {
    await stack.healthy();
  } catch (error) {
    await killStack(stack, env.DATA_DIR);
    throw error;
  }
  project.provide("sharedStack", { env, apiUrl: stack.apiUrl });
  return async () => {
    await killStack(stack, env.DATA_DIR);
    if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedStack: { env: StackEnv; apiUrl: string };
  }
}
