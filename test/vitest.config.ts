import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["e2e/**/*.test.ts", "browser/**/*.test.ts"],
    globalSetup: ["e2e/shared-stack.setup.ts"],
    // Each start brings up Postgres, a Hardhat node (with a deployment) and Ponder: tens of seconds.
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // The shared stack's clean stop (the global setup's teardown) takes longer than the default 10 s.
    teardownTimeout: 60_000,
    // One stack at a time: the steps of a file share it, in order.
    fileParallelism: false,
  },
});
