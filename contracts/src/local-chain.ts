/**
 * A local Hardhat node with the marketplace deployed, for `pnpm start` and for the end-to-end
 * tests and benchmarks of the other packages. Node.js only (it spawns processes).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Deployment, deploymentsDir, readDeployment } from "./deployments.ts";

const contractsDir = fileURLToPath(new URL("..", import.meta.url));

/** Hardhat's CLI, run with this Node directly (not through the .bin shell wrapper), so that
 * stopping the child really stops the node. */
function hardhatCli(): string {
  const hardhatPackage = createRequire(import.meta.url).resolve("hardhat/package.json");
  const { bin } = JSON.parse(readFileSync(hardhatPackage, "utf8")) as { bin: { hardhat: string } };
  return path.join(path.dirname(hardhatPackage), bin.hardhat);
}

export interface LocalNode {
  rpcUrl: string;
  process: ChildProcess;
  /** Stops the node and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `hardhat node` on 127.0.0.1:`port` and waits until it answers. Its output goes to
 * `logFile` (appended) or is dropped. `chainId` (default 31337) lets it pass for another chain, as
 * the production rehearsal's Base (8453, an OP-stack chain: `chainType: "op"`).
 */
export async function startHardhatNode(options: {
  port: number;
  logFile?: string;
  chainId?: number;
  chainType?: "l1" | "op";
}): Promise<LocalNode> {
  const rpcUrl = `http://127.0.0.1:${options.port}`;
  if ((await chainIdAt(rpcUrl)) !== undefined) throw new Error(`A chain already answers at ${rpcUrl}`);
  const output = options.logFile ? openSync(options.logFile, "a") : "ignore";
  const child = spawn(
    process.execPath,
    [
      hardhatCli(),
      "node",
      "--hostname",
      "127.0.0.1",
      "--port",
      String(options.port),
      ...(options.chainId === undefined ? [] : ["--chain-id", String(options.chainId)]),
      ...(options.chainType === undefined ? [] : ["--chain-type", options.chainType]),
    ],
    {
      cwd: contractsDir,
      stdio: ["ignore", output, output],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const early = exited.then(() => {
    throw new Error(`hardhat node on port ${options.port} exited at start`);
  });
  await Promise.race([waitForChain(rpcUrl, 60_000), early]);
  early.catch(() => {});
  return {
    rpcUrl,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * Deploys the marketplace to the node at `rpcUrl` (scripts/deploy.ts: keeps a deployment that is
 * still on chain) and returns the deployment. `deploymentsDir` keeps a test's deployments file
 * away from the developer's.
 */
export async function deployLocalMarketplace(options: {
  rpcUrl: string;
  deploymentsDir?: string;
}): Promise<Deployment> {
  const env: Record<string, string> = { RPC_URL: options.rpcUrl };
  if (options.deploymentsDir) env.DEPLOYMENTS_DIR = path.resolve(options.deploymentsDir);
  await run([hardhatCli(), "run", "scripts/deploy.ts", "--network", "localhost"], env);
  const chainId = await chainIdAt(options.rpcUrl);
  const deployment =
    chainId === undefined ? undefined : readDeployment(chainId, deploymentsDir({ ...process.env, ...env }));
  if (!deployment) throw new Error(`no deployment recorded for chain ${chainId}`);
  return deployment;
}

/**
 * The documented deploy command, `pnpm --filter @agent-marketplace/contracts deploy --network
 * <network>` (scripts/deploy.ts), run with `env` (BASE_RPC_URL, DEPLOYER_PRIVATE_KEY,
 * DEPLOY_PARAMETERS, DEPLOYMENTS_DIR, DEPLOYMENT_ID: see the script): what an operator runs against
 * Base, pointed by the production rehearsal at its Base-like node.
 */
export async function deployToNetwork(network: "base" | "baseSepolia", env: Record<string, string>): Promise<void> {
  await run([hardhatCli(), "run", "scripts/deploy.ts", "--network", network], env);
}

/** The chain id the node at `url` reports, or undefined if nothing answers. */
export async function chainIdAt(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    const { result } = (await response.json()) as { result: string };
    return Number(result);
  } catch {
    return undefined;
  }
}

export async function waitForChain(url: string, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const chainId = await chainIdAt(url);
    if (chainId !== undefined) return chainId;
    if (Date.now() > until) throw new Error(`no chain answered at ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function run(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn(process.execPath, args, {
      cwd: contractsDir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`hardhat ${args.slice(1).join(" ")} failed (${code}):\n${output}`)),
    );
  });
}
