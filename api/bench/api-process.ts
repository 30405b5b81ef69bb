/**
 * The processes a benchmark measures: the API as its own process (src/main.ts) against a bench
 * stack, and the bare Hono route it is compared with; each resolves once it answers.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { freePort, type Stack } from "@agent-marketplace/indexer/testing";
import { apiNodeFlags } from "../src/node-flags.ts";

const apiDir = fileURLToPath(new URL("..", import.meta.url));

export interface Server {
  url: string;
  child: ChildProcess;
  /** SIGTERM, resolved once the process has exited. */
  stop(): Promise<void>;
}

/** Polls `url` until it answers 200. */
export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = "no answer";
  while (Date.now() < until) {
    const response = await fetch(url).catch(() => undefined);
    if (response?.ok) return;
    if (response) last = `${response.status} ${await response.text()}`;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})`);
}

async function startServer(script: string, env: Record<string, string>, readyPath: string, flags: string[] = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [...flags, script], {
    cwd: apiDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  try {
    await waitFor(`${url}${readyPath}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, child, stop };
}

/**
 * The API on `stack`, with a fresh master key and the rate limits out of the way (every request of
 * a benchmark comes from one IP, and a limit is not what is measured); `env` adds or overrides.
 * BENCH_CPU_PROFILE=<dir> with `profile` writes a V8 CPU profile of it there.
 */
export function startApi(stack: Stack, env: Record<string, string> = {}, profile = false): Promise<Server> {
  const dir = process.env.BENCH_CPU_PROFILE;
  return startServer(
    "src/main.ts",
    {
      DATABASE_URL: stack.postgres.apiUrl,
      RPC_URL: stack.node.rpcUrl,
      CHAIN_ID: String(stack.deployment.chainId),
      DEPLOYMENTS_DIR: stack.deploymentsDir,
      MASTER_KEY: randomBytes(32).toString("hex"),
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "1000000000",
      RATE_LIMIT_PER_IP_PER_MINUTE: "1000000000",
      REGISTRATIONS_PER_HOUR: "1000000",
      ...env,
    },
    "/api/health",
    [...apiNodeFlags(), ...(profile && dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [])],
  );
}

/**
 * A bare Hono app with one GET /hello route: the floor the API's figures are set against. With
 * `databaseUrl`, also GET /hello/db: one trivial statement on that database per request.
 */
export function startHello(databaseUrl?: string): Promise<Server> {
  return startServer("bench/hello-server.ts", databaseUrl ? { DATABASE_URL: databaseUrl } : {}, "/hello");
}
