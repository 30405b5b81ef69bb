/**
 * `pnpm start` (for now): a local Hardhat node on 127.0.0.1:8545 with the marketplace contracts
 * deployed, or, with `RPC_URL` set, deployment to that node only. Prints the addresses and keeps
 * the node running until Ctrl-C. The node's own log goes to `.data/hardhat-node.log`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readDeployment } from "../src/deployments.ts";

const contractsDir = fileURLToPath(new URL("..", import.meta.url));
const dataDir = path.resolve(contractsDir, "..", ".data");
// Run Hardhat's CLI with this Node directly (not through the .bin shell wrapper), so that stopping
// the child really stops the node.
const hardhatPackage = createRequire(import.meta.url).resolve("hardhat/package.json");
const hardhatCli = path.join(
  path.dirname(hardhatPackage),
  (JSON.parse(readFileSync(hardhatPackage, "utf8")) as { bin: { hardhat: string } }).bin.hardhat,
);
const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8545";

let node: ChildProcess | undefined;
if (!process.env.RPC_URL) {
  if ((await chainIdAt(rpcUrl)) !== undefined) {
    console.error(`A chain already answers at ${rpcUrl}. Stop it, or set RPC_URL=${rpcUrl} to deploy to it.`);
    process.exit(1);
  }
  mkdirSync(dataDir, { recursive: true });
  const log = openSync(path.join(dataDir, "hardhat-node.log"), "a");
  node = spawn(process.execPath, [hardhatCli, "node", "--hostname", "127.0.0.1", "--port", "8545"], {
    cwd: contractsDir,
    stdio: ["ignore", log, log],
  });
  node.on("exit", (code) => {
    console.error(`Hardhat node exited (${code}); see .data/hardhat-node.log`);
    process.exit(1);
  });
}

const stop = () => {
  node?.removeAllListeners("exit");
  node?.kill("SIGTERM");
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

const chainId = await waitForChain(rpcUrl, 60_000);
await run(process.execPath, [hardhatCli, "run", "scripts/deploy.ts", "--network", "localhost"], { RPC_URL: rpcUrl });

const deployment = readDeployment(chainId);
if (!deployment) throw new Error(`no deployment recorded for chain ${chainId}`);
console.log(`
Local chain ready
  RPC                 ${rpcUrl} (chain ${chainId})
  AgentEscrow         ${deployment.contracts.AgentEscrow.address}
  USDC (MockUSDC)     ${deployment.contracts.USDC.address}
  IdentityRegistry    ${deployment.contracts.IdentityRegistry?.address ?? "-"}
  ReputationRegistry  ${deployment.contracts.ReputationRegistry?.address ?? "-"}
  Roles               owner/fee recipient = account #0, arbiter = #1, operator = #2
  Dev accounts        the node's accounts #0-#9 hold 10,000 USDC each
${node ? "Press Ctrl-C to stop.\n" : ""}`);
if (!node) process.exit(0);

async function chainIdAt(url: string): Promise<number | undefined> {
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

async function waitForChain(url: string, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const chainId = await chainIdAt(url);
    if (chainId !== undefined) return chainId;
    if (Date.now() > until) throw new Error(`no chain answered at ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: contractsDir, stdio: "inherit", env: { ...process.env, ...env } });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} failed`))));
  });
}
