import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_HEAP_LIMIT_MIB, API_SEMI_SPACE_MIB, apiNodeFlags } from "./node-flags.ts";

/** The heap limit (MiB) of a Node process started with `flags` and `nodeOptions`. */
function heapLimitOf(flags: string[], nodeOptions = ""): number {
  const script = "console.log(require('node:v8').getHeapStatistics().heap_size_limit)";
  const out = execFileSync(process.execPath, [...flags, "-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  return Number(out) / 1024 / 1024;
}

describe("apiNodeFlags", () => {
  it("caps V8's heap of an API process, unless NODE_OPTIONS or the process's flags set a cap", () => {
    const flags = apiNodeFlags("", []);
    expect(flags).toEqual([
      `--max-old-space-size=${API_HEAP_LIMIT_MIB}`,
      `--max-semi-space-size=${API_SEMI_SPACE_MIB}`,
      "--no-allocation-site-pretenuring",
    ]);
    // The limit V8 reports is the old space's cap plus the young generation's.
    const capped = heapLimitOf(flags);
    expect(capped).toBeGreaterThanOrEqual(API_HEAP_LIMIT_MIB);
    expect(capped).toBeLessThan(API_HEAP_LIMIT_MIB + 64);
    expect(heapLimitOf([])).toBeGreaterThan(capped);

    expect(apiNodeFlags("--max-old-space-size=1024", [])).toEqual([
      `--max-semi-space-size=${API_SEMI_SPACE_MIB}`,
      "--no-allocation-site-pretenuring",
    ]);
    expect(
      apiNodeFlags("", ["--max-old-space-size=512", "--max-semi-space-size=4", "--allocation-site-pretenuring"]),
    ).toEqual([]);
    expect(apiNodeFlags("--enable-source-maps", ["--inspect"])).toEqual(flags);
  });

  it("is what the api package's start script runs with (the script cannot import it)", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(manifest.scripts.start).toBe(`node ${apiNodeFlags("", []).join(" ")} src/main.ts`);
  });
});
