import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // The files share one database, and error tests assert that nothing in it changed: one file
    // at a time keeps those assertions exact.
    fileParallelism: false,
    // One worker runs every file in turn and keeps its imports: the app is loaded once, not 46 times.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 240_000,
  },
});
