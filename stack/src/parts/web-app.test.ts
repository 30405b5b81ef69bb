import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isStale, newestChange } from "./web-app.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `file` under the test folder, modified `secondsAgo` seconds ago. */
function touch(file: string, secondsAgo: number): string {
  const full = path.join(dir, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, "x");
  const when = Date.now() / 1000 - secondsAgo;
  utimesSync(full, when, when);
  return full;
}

describe("whether pnpm start builds the web app again", () => {
  it("builds when there is no build yet", () => {
    dir = mkdtempSync(path.join(tmpdir(), "web-app-"));
    touch("src/main.tsx", 100);
    expect(isStale(path.join(dir, "dist/index.html"), [path.join(dir, "src")])).toBe(true);
  });

  it("builds when a source deep in a folder is newer than the build, and not otherwise", () => {
    dir = mkdtempSync(path.join(tmpdir(), "web-app-"));
    const built = touch("dist/index.html", 50);
    touch("src/pages/home.tsx", 100);
    const sources = [path.join(dir, "src"), path.join(dir, "index.html")];
    expect(isStale(built, sources)).toBe(false);
    touch("src/pages/deep/listing.tsx", 10);
    expect(isStale(built, sources)).toBe(true);
  });

  it("ignores tests and missing paths", () => {
    dir = mkdtempSync(path.join(tmpdir(), "web-app-"));
    const built = touch("dist/index.html", 50);
    touch("src/format.ts", 100);
    touch("src/format.test.ts", 1);
    expect(isStale(built, [path.join(dir, "src"), path.join(dir, "nowhere")])).toBe(false);
    expect(newestChange([path.join(dir, "nowhere")])).toBe(0);
  });
});
