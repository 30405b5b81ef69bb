/**
 * `pnpm start` as a process, for end-to-end tests: the stack's supervisor (stack/src/main.ts) run by
 * Node 22 with its own ports and data folder, in a process group of its own so that nothing
 * outlives a test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@agent-marketplace/indexer/local-postgres";
import type { Address } from "viem";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const stackDir = path.join(repoRoot, "stack");
const startScript = path.join(stackDir, "src", "main.ts");

/** The Node that runs the stack: this one if it strips TypeScript types, else the repo's Node 22. */
export function nodeBinary(): string {
  if ((process.features as { typescript?: unknown }).typescript) return process.execPath;
  const repoNode = path.join(repoRoot, "node_modules", "node", "bin", "node");
  if (existsSync(repoNode)) return repoNode;
  throw new Error(`Node ${process.version} cannot run .ts files and ${repoNode} is missing: run pnpm install`);
}

export interface StackEnv {
  DATA_DIR: string;
  DEPLOYMENTS_DIR: string;
  PG_PORT: string;
  HARDHAT_PORT: string;
  INDEXER_PORT: string;
  API_PORT: string;
  /** Any other variable for `pnpm start` (e.g. KEEPER_INTERVAL_MS). */
  [name: string]: string;
}

export interface StackProcess {
  child: ChildProcess;
  apiUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves once GET /api/health answers 200 and the block of URLs is printed; rejects if the
   * process exits first.
   */
  healthy(timeoutMs?: number): Promise<void>;
}

/** A fresh temporary folder and free ports for one stack: `dir` holds its data and deployments. */
export async function newStackEnv(prefix: string): Promise<{ dir: string; env: StackEnv }> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  // The system may offer a port it just offered again, once it is closed: four different ones.
  const ports = new Set<number>();
  while (ports.size < 4) ports.add(await freePort());
  const [pg, node, indexer, api] = [...ports].map(String) as [string, string, string, string];
  return {
    dir,
    env: {
      DATA_DIR: path.join(dir, "data"),
      DEPLOYMENTS_DIR: path.join(dir, "deployments"),
      PG_PORT: pg,
      HARDHAT_PORT: node,
      INDEXER_PORT: indexer,
      API_PORT: api,
    },
  };
}

export function startStackProcess(env: StackEnv): StackProcess {
  const inherited = { ...process.env };
  // Whatever the developer's shell points at, the test brings up its own of everything.
  for (const name of ["DATABASE_URL", "RPC_URL", "CHAIN_ID", "MASTER_KEY", "PORT", "DATABASE_SCHEMA", "HOST"]) {
    delete inherited[name];
  }
  const child = spawn(nodeBinary(), [startScript], {
    cwd: stackDir,
    env: { ...inherited, ...env, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const apiUrl = `http://127.0.0.1:${env.API_PORT}`;
  return {
    child,
    apiUrl,
    output: () => output,
    exited,
    async healthy(timeoutMs = 180_000) {
      const until = Date.now() + timeoutMs;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      void exited.then((value) => {
        exit = value;
      });
      for (;;) {
        if (exit) throw new Error(`pnpm start exited (${exit.code ?? exit.signal}) before it was healthy:\n${output}`);
        const status = await fetch(`${apiUrl}/api/health`).then(
          (response) => response.status,
          () => 0,
        );
        if (status === 200 && output.includes("Press Ctrl-C")) return;
        if (Date.now() > until) throw new Error(`no healthy API at ${apiUrl} within ${timeoutMs} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

/**
 * Makes sure nothing of a stack survives: SIGTERM (a clean stop), then SIGKILL for its process
 * group and for the group of the runner named in `<DATA_DIR>/stack.pid` (the part that owns
 * Postgres, the node and the indexer, in a session of its own).
 */
export async function killStack(stack: StackProcess | undefined, dataDir: string): Promise<void> {
  if (stack?.child.pid && stack.child.exitCode === null && stack.child.signalCode === null) {
    stack.child.kill("SIGTERM");
    const stopped = await Promise.race([
      stack.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 30_000)),
    ]);
    if (!stopped) signalGroup(stack.child.pid, "SIGKILL");
  }
  const lockFile = path.join(dataDir, "stack.pid");
  if (existsSync(lockFile)) {
    const runner = Number(readFileSync(lockFile, "utf8").trim());
    if (Number.isInteger(runner) && runner > 0) signalGroup(runner, "SIGKILL");
  }
  // A part that outlived its parent may still hold the output pipes: let go of them, or the test
  // process would wait on them before it exits.
  stack?.child.stdout?.destroy();
  stack?.child.stderr?.destroy();
  stack?.child.unref();
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** A response's JSON body, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON.
export async function json(response: Response): Promise<any> {
  return response.json();
}

/** Linux: the processes whose command line holds every one of `words` (in /proc). */
export function processesWith(words: string[]): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (words.every((word) => args.some((arg) => arg.includes(word)))) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A JSON request to a running API: its status and parsed body. */
export async function callApi(apiUrl: string, method: string, route: string, body?: unknown, key?: string) {
  const response = await fetch(`${apiUrl}${route}`, {
    method,
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await json(response) };
}

/** Registers a hosted agent over HTTP; the local faucet gives it `usdcWei`. */
export async function registerHostedAgent(apiUrl: string, name: string, usdcWei = 0n) {
  const { status, body } = await callApi(apiUrl, "POST", "/api/agents/register", { name, hosted: true });
  if (status !== 201) throw new Error(`register answered ${status}: ${JSON.stringify(body)}`);
  if (usdcWei > 0n) {
    const grant = await callApi(apiUrl, "POST", "/api/dev/faucet", {
      address: body.agent.wallet_address,
      usdc_wei: usdcWei.toString(),
    });
    if (grant.status !== 200) throw new Error(`faucet answered ${grant.status}: ${JSON.stringify(grant.body)}`);
  }
  return { id: body.agent.id as string, key: body.api_key as string, wallet: body.agent.wallet_address as Address };
}

/** Polls until `check` passes (it throws until then), for at most `ms`. */
export async function eventually<T>(check: () => Promise<T>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
