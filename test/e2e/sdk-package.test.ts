/**
 * The SDK as people install it: `pnpm pack` (which builds dist/ first) into a tarball, installed
 * with npm in a fresh folder outside the repository (its dependencies from the npm registry); then
 * its README's quick start, typechecked against the packed types and run as written against the
 * shared stack on Node 20 and on Node 22, and its bin (the MCP server) listing its tools on both.
 * Both Nodes must be there: Node 22 is the repository's (node_modules/node), Node 20 the machine's
 * (a `node` on PATH outside the repository); a missing one fails the test.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { repoRoot } from "./stack-process.ts";

const run = promisify(execFile);
const { apiUrl } = inject("sharedStack");
const sdkDir = path.join(repoRoot, "sdk");
const sdkVersion: string = JSON.parse(readFileSync(path.join(sdkDir, "package.json"), "utf8")).version;

/** The major version of a Node binary, or undefined if it does not run. */
async function majorOf(binary: string): Promise<number | undefined> {
  try {
    const { stdout } = await run(binary, ["--version"]);
    return Number(stdout.trim().replace(/^v/, "").split(".")[0]);
  } catch {
    return undefined;
  }
}

/** The machine's Node 20: the first `node` on PATH that is not the repository's own. */
async function machineNode20(): Promise<string> {
  const seen: string[] = [];
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir || path.resolve(dir).startsWith(repoRoot)) continue;
    const binary = path.join(dir, process.platform === "win32" ? "node.exe" : "node");
    if (!existsSync(binary)) continue;
    const major = await majorOf(binary);
    seen.push(`${binary} (${major ?? "does not run"})`);
    if (major === 20) return binary;
  }
  throw new Error(`no Node 20 on PATH outside the repository; found: ${seen.join(", ") || "none"}`);
}

/** The repository's Node 22 (the `node` devDependency). */
async function repoNode22(): Promise<string> {
  const binary = path.join(repoRoot, "node_modules", "node", "bin", "node");
  const major = await majorOf(binary);
  if (major !== 22) throw new Error(`${binary} is not Node 22 (${major ?? "missing"}): run pnpm install`);
  return binary;
}

/** pnpm as the tests were started with it, else the version the repository names. */
function pnpm(): { command: string; args: string[] } {
  const execpath = process.env.npm_execpath;
  if (execpath && /pnpm/.test(path.basename(execpath))) return { command: process.execPath, args: [execpath] };
  const { packageManager } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"));
  return { command: "npx", args: ["-y", packageManager] };
}

/** The README's quick start: the first ```js block under "## Quick start". */
function quickStart(): string {
  const readme = readFileSync(path.join(sdkDir, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const block = section.match(/```js\n([\s\S]*?)```/);
  if (!block?.[1]) throw new Error("sdk/README.md has no js block under ## Quick start");
  return block[1];
}

async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    console.log(`sdk package: ${label} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

let folder: string;
let nodes: { name: string; binary: string }[];
const distBefore = existsSync(path.join(sdkDir, "dist"));

beforeAll(async () => {
  nodes = [
    { name: "Node 20", binary: await machineNode20() },
    { name: "Node 22", binary: await repoNode22() },
  ];
  folder = mkdtempSync(path.join(tmpdir(), "sdk-package-"));
});

afterAll(() => {
  if (folder && !process.env.KEEP_TEST_DATA) rmSync(folder, { recursive: true, force: true });
  // pnpm pack built dist/; leave the working tree as it was.
  if (!distBefore) rmSync(path.join(sdkDir, "dist"), { recursive: true, force: true });
});

describe("the SDK package", () => {
  it("packs (building dist/), installs from the tarball with npm, and its README's quick start runs on Node 20 and 22", async () => {
    const { command, args } = pnpm();
    await timed("pnpm pack (with the build)", () =>
      run(command, [...args, "pack", "--pack-destination", folder], { cwd: sdkDir, maxBuffer: 16 * 1024 * 1024 }),
    );
    const tarball = readdirSync(folder).find((file) => file.endsWith(".tgz"));
    expect(tarball).toMatch(/^agent-marketplace-sdk-\d+\.\d+\.\d+\.tgz$/);

    const app = path.join(folder, "app");
    mkdirSync(app);
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    await timed("npm install of the tarball", () =>
      run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", path.join(folder, tarball as string)], {
        cwd: app,
        maxBuffer: 16 * 1024 * 1024,
      }),
    );

    // What the tarball holds: the built files and the publishConfig's entry points, no source.
    const installed = path.join(app, "node_modules", "@agent-marketplace", "sdk");
    const manifest = JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8"));
    expect(manifest).not.toHaveProperty("private");
    expect(manifest.exports).toEqual({
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./mcp": { types: "./dist/mcp/server.d.ts", import: "./dist/mcp/server.js" },
      "./package.json": "./package.json",
    });
    expect(manifest.bin).toEqual({ "agent-marketplace-mcp": "./dist/mcp/main.js" });
    for (const file of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/mcp/main.js",
      "README.md",
      "CHANGELOG.md",
      "LICENSE",
    ]) {
      expect(existsSync(path.join(installed, file)), file).toBe(true);
    }
    expect(existsSync(path.join(installed, "src"))).toBe(false);
    expect(readFileSync(path.join(installed, "dist", "mcp", "main.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);

    // The quick start, typechecked against the packed types (as JavaScript with checkJs).
    writeFileSync(path.join(app, "quickstart.mjs"), quickStart());
    writeFileSync(
      path.join(app, "globals.d.ts"),
      "declare const process: { env: Record<string, string | undefined> };\n",
    );
    writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          allowJs: true,
          checkJs: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["quickstart.mjs", "globals.d.ts"],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    await timed("tsc on the quick start", () =>
      run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app }).catch((error: { stdout?: string }) => {
        throw new Error(`the quick start does not typecheck:\n${error.stdout}`);
      }),
    );

    for (const node of nodes) {
      const { stdout } = await timed(`the quick start on ${node.name}`, () =>
        run(node.binary, ["quickstart.mjs"], { cwd: app, env: { ...process.env, MARKETPLACE_API_URL: apiUrl } }),
      );
      expect(stdout, node.name).toMatch(/^Agent marketplace, chain 31337$/m);
      expect(stdout, node.name).toMatch(/^registered [0-9a-f-]{36}; its key is on the client: quick-start$/m);
    }
  });

  it("its bin, the MCP server, lists the tools on Node 20 and 22", async () => {
    const bin = path.join(folder, "app", "node_modules", ".bin", "agent-marketplace-mcp");
    expect(existsSync(bin)).toBe(true);
    for (const node of nodes) {
      const transport = new StdioClientTransport({
        command: node.binary,
        args: [bin],
        env: { MARKETPLACE_API_URL: apiUrl },
        stderr: "pipe",
      });
      const client = new Client({ name: `sdk package ${node.name}`, version: "0.0.0" });
      const { tools } = await timed(`the MCP server's tools on ${node.name}`, async () => {
        await client.connect(transport);
        return client.listTools();
      });
      const server = client.getServerVersion();
      await client.close();
      // The server names itself with the package's version (read from the installed package.json).
      expect(server?.version, node.name).toBe(sdkVersion);
      expect(
        tools.map((tool) => tool.name),
        node.name,
      ).toEqual(expect.arrayContaining(["register", "browse_listings", "buy_listing", "get_test_usdc"]));
    }
  });
});
