/**
 * The web app (web/): built into web/dist by the install, and again here when its sources are
 * newer than the build (a developer edited a page or the SDK and typed `pnpm start`). The API serves
 * web/dist at `/`. A step, with nothing to stop. A failed build does not stop the marketplace (the
 * API and its agents need no web app): it prints Vite's output and the API serves the last build, or
 * a page saying how to build it.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../settings.ts";
import type { Part } from "../supervisor.ts";

const webDir = path.join(repoRoot, "web");

/** What the build reads: a change to any of them makes web/dist stale. */
export const WEB_SOURCES = [
  path.join(webDir, "src"),
  path.join(webDir, "public"),
  path.join(webDir, "index.html"),
  path.join(webDir, "vite.config.ts"),
  path.join(webDir, "package.json"),
  path.join(repoRoot, "sdk", "src"),
];

/** The newest modification time of `paths` (files, or folders read recursively); 0 for none. */
export function newestChange(paths: readonly string[]): number {
  let newest = 0;
  for (const entry of paths) {
    if (!existsSync(entry)) continue;
    const stat = statSync(entry);
    if (stat.isFile()) {
      newest = Math.max(newest, stat.mtimeMs);
      continue;
    }
    for (const name of readdirSync(entry, { recursive: true, encoding: "utf8" })) {
      // Tests are not part of the bundle; editing one needs no build.
      if (/\.test\.tsx?$/.test(name)) continue;
      const file = statSync(path.join(entry, name));
      if (file.isFile()) newest = Math.max(newest, file.mtimeMs);
    }
  }
  return newest;
}

/** Whether `distIndex` is missing or older than any of `sources`. */
export function isStale(distIndex: string, sources: readonly string[]): boolean {
  if (!existsSync(distIndex)) return true;
  return newestChange(sources) > statSync(distIndex).mtimeMs;
}

export function webApp(): Part {
  return {
    name: "The web app",
    shortName: "web app",
    async start() {
      const vite = path.join(webDir, "node_modules", "vite", "bin", "vite.js");
      if (!existsSync(vite)) {
        console.warn("The web app is not installed (web/node_modules is missing): run pnpm install to build it.");
        return {};
      }
      if (!isStale(path.join(webDir, "dist", "index.html"), WEB_SOURCES)) return {};
      console.log("Building the web app (its sources changed since the last build)...");
      const output: string[] = [];
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [vite, "build", "--logLevel", "warn"], {
          cwd: webDir,
          // The production build whatever NODE_ENV the caller has (a test runner sets "test", and
          // React's development build would then be served: twice the size, and slower).
          env: { ...process.env, NODE_ENV: "production" },
          stdio: ["ignore", "pipe", "pipe"],
        });
        child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()));
        child.once("error", reject);
        child.once("exit", resolve);
      });
      if (code !== 0) {
        console.warn(
          `The web app's build failed (web/, vite build); the API serves the last build:\n${output.join("")}`,
        );
      }
      return {};
    },
  };
}
