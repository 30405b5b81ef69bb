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
    // A page on a loaded 2-core CI machine can take seconds to show what it fetched: vitest's default
    // of one second for expect.poll made the browser tests flaky. A poll that never matches still fails.
    expect: { poll: { timeout: 15_000 } },
  },
});
