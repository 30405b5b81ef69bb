/**
 * `pnpm --filter @agent-marketplace/contracts start`: the chain alone, a local Hardhat node on
 * 127.0.0.1:8545 with the marketplace contracts deployed, or, with `RPC_URL` set, deployment to
 * that node only. Prints the addresses and keeps the node running until Ctrl-C. The node's own log
 * goes to `.data/hardhat-node.log`. The root `pnpm start` (stack/src/main.ts) brings up
 * the whole stack instead.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deployLocalMarketplace, type LocalNode, startHardhatNode } from "../src/local-chain.ts";

const dataDir = fileURLToPath(new URL("../../.data", import.meta.url));

let node: LocalNode | undefined;
if (!process.env.RPC_URL) {
  mkdirSync(dataDir, { recursive: true });
  try {
    node = await startHardhatNode({ port: 8545, logFile: path.join(dataDir, "hardhat-node.log") });
  } catch (error) {
    console.error(`${(error as Error).message}. Stop it, or set RPC_URL to deploy to it.`);
    process.exit(1);
  }
  node.process.on("exit", (code) => {
    console.error(`Hardhat node exited (${code}); see .data/hardhat-node.log`);
    process.exit(1);
  });
}
const rpcUrl = node?.rpcUrl ?? (process.env.RPC_URL as string);

const stop = async () => {
  node?.process.removeAllListeners("exit");
  await node?.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

const deployment = await deployLocalMarketplace({ rpcUrl });
console.log(`
Local chain ready
  RPC                 ${rpcUrl} (chain ${deployment.chainId})
  AgentEscrow         ${deployment.contracts.AgentEscrow.address}
  USDC (MockUSDC)     ${deployment.contracts.USDC.address}
  IdentityRegistry    ${deployment.contracts.IdentityRegistry?.address ?? "-"}
  ReputationRegistry  ${deployment.contracts.ReputationRegistry?.address ?? "-"}
  Roles               owner/fee recipient = account #0, arbiter = #1, operator = #2
  Dev accounts        the node's accounts #0-#9 hold 10,000 USDC each
${node ? "Press Ctrl-C to stop.\n" : ""}`);
if (!node) process.exit(0);
