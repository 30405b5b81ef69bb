import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["lib/**/*.test.ts", "test/**/*.test.ts"],
    // The end-to-end tests start a Hardhat node, Postgres and Ponder, and wait for blocks.
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
