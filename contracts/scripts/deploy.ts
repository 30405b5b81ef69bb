/**
 * Deploys the marketplace contracts to the selected network and records them in
 * `deployments/<chainId>.json` (address, start block, ABI name), which the other packages import.
 *
 *   hardhat run scripts/deploy.ts --network localhost     MockUSDC + ERC-8004 registries + escrow
 *   hardhat run scripts/deploy.ts --network baseSepolia   escrow against Circle's USDC
 *   hardhat run scripts/deploy.ts --network base          escrow against Circle's USDC
 *
 * An existing deployment whose escrow still has code on the chain is kept. On a local chain that
 * was restarted (no code at the recorded address) the deployment is redone from scratch.
 *
 * On Base and Base Sepolia: BASE_RPC_URL / BASE_SEPOLIA_RPC_URL and DEPLOYER_PRIVATE_KEY (from the
 * environment or Hardhat's keystore); the escrow's roles from `ignition/parameters/<network>.json`,
 * or from the file DEPLOY_PARAMETERS names (`{ "AgentEscrow": { "token", "arbiter", "operator",
 * "feeRecipient", "owner", "feeBps", "maxFeeBps" } }`: see ignition/escrowArgs.ts; unnamed roles are
 * the deployer). DEPLOYMENT_ID names Ignition's journal (ignition/deployments/<id>; default
 * chain-<chainId>), DEPLOYMENTS_DIR where `<chainId>.json` is written.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { network } from "hardhat";
import AgentEscrowModule from "../ignition/modules/AgentEscrow.ts";
import LocalMarketplaceModule from "../ignition/modules/LocalMarketplace.ts";
import { LOCAL_CHAIN_ID, USDC_ADDRESSES } from "../src/chains.ts";
import {
  type Deployment,
  deploymentFile,
  deploymentsDir,
  readDeployment,
  writeDeployment,
} from "../src/deployments.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
/** USDC given to each of the local node's first ten accounts, so developers can trade at once. */
const LOCAL_DEV_BALANCE = 10_000n * 1_000_000n;

const connection = await network.create();
const publicClient = await connection.viem.getPublicClient();
const chainId = await publicClient.getChainId();

const existing = readDeployment(chainId);
if (existing && (await publicClient.getCode({ address: existing.contracts.AgentEscrow.address }))) {
  console.log(`Contracts already deployed on chain ${chainId}: ${deploymentFile(chainId)}`);
} else {
  const startBlock = Number(await publicClient.getBlockNumber()) + 1;
  const deployment = chainId === LOCAL_CHAIN_ID ? await deployLocal(startBlock) : await deployLive(startBlock);
  console.log(`Deployed to chain ${chainId}: ${writeDeployment(deployment)}`);
}
await connection.close();

async function deployLocal(startBlock: number): Promise<Deployment> {
  // A restarted local node has lost the contracts Ignition recorded: start its journal afresh. A
  // deployment with its own DEPLOYMENTS_DIR (a test's chain) keeps a journal of its own.
  const deploymentId = process.env.DEPLOYMENTS_DIR
    ? `local-${createHash("sha256").update(deploymentsDir()).digest("hex").slice(0, 12)}`
    : `chain-${LOCAL_CHAIN_ID}`;
  rmSync(path.join(root, "ignition/deployments", deploymentId), { recursive: true, force: true });
  const { usdc, identityRegistry, reputationRegistry, escrow } = await connection.ignition.deploy(
    LocalMarketplaceModule,
    { deploymentId },
  );
  // A test's chain lives as long as the test: its journal is of no use afterwards.
  if (process.env.DEPLOYMENTS_DIR)
    rmSync(path.join(root, "ignition/deployments", deploymentId), { recursive: true, force: true });
  for (const wallet of (await connection.viem.getWalletClients()).slice(0, 10)) {
    await publicClient.waitForTransactionReceipt({
      hash: await usdc.write.mint([wallet.account.address, LOCAL_DEV_BALANCE]),
    });
  }
  return {
    chainId,
    contracts: {
      AgentEscrow: { address: escrow.address, startBlock, abi: "agentEscrowAbi" },
      USDC: { address: usdc.address, startBlock, abi: "mockUsdcAbi" },
      IdentityRegistry: { address: identityRegistry.address, startBlock, abi: "identityRegistryAbi" },
      ReputationRegistry: { address: reputationRegistry.address, startBlock, abi: "reputationRegistryAbi" },
    },
  };
}

async function deployLive(startBlock: number): Promise<Deployment> {
  const token = USDC_ADDRESSES[chainId];
  if (!token) throw new Error(`No USDC address known for chain ${chainId}`);
  const parametersFile = process.env.DEPLOY_PARAMETERS
    ? path.resolve(process.env.DEPLOY_PARAMETERS)
    : path.join(root, "ignition/parameters", `${connection.networkName}.json`);
  const parameters = existsSync(parametersFile)
    ? JSON.parse(readFileSync(parametersFile, "utf8"))
    : { AgentEscrow: { token } };
  if (parameters.AgentEscrow?.token?.toLowerCase() !== token.toLowerCase()) {
    throw new Error(`${parametersFile} must name USDC ${token} as the escrow's token`);
  }
  const { escrow } = await connection.ignition.deploy(AgentEscrowModule, {
    parameters,
    ...(process.env.DEPLOYMENT_ID && { deploymentId: process.env.DEPLOYMENT_ID }),
  });
  return {
    chainId,
    contracts: {
      AgentEscrow: { address: escrow.address, startBlock, abi: "agentEscrowAbi" },
      USDC: { address: token, startBlock: 0, abi: "erc20Abi" },
    },
  };
}
