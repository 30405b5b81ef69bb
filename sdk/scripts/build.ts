/**
 * Builds the package as it is published: dist/ from src/ (ESM and .d.ts, by tsc with
 * tsconfig.build.json; relative `.ts` imports rewritten to `.js`, so Node 20 runs it and any
 * TypeScript reads its types), the MCP server's entry made executable. `pnpm pack` runs it first
 * (prepack).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = path.join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });

// tsc rewrites the JavaScript's relative imports, not the declarations' (`from "./client.ts"`).
const relativeTs = /((?:from|import)\s*\(?\s*["']\.{1,2}\/[^"']*)\.ts(["'])/g;
for (const file of readdirSync(dist, { recursive: true, encoding: "utf8" })) {
  const target = path.join(dist, file);
  if (file.endsWith(".d.ts")) writeFileSync(target, readFileSync(target, "utf8").replace(relativeTs, "$1.js$2"));
  if (file.endsWith(".js") && relativeTs.test(readFileSync(target, "utf8"))) {
    throw new Error(`dist/${file} still imports a .ts file`);
  }
  relativeTs.lastIndex = 0;
}

const main = path.join(dist, "mcp", "main.js");
if (!readFileSync(main, "utf8").startsWith("#!/usr/bin/env node\n"))
  throw new Error("dist/mcp/main.js: no node shebang");
chmodSync(main, 0o755);
console.log(`built ${path.relative(process.cwd(), dist) || "."}`);
