/**
 * The rehearsal's Base: a Hardhat node that answers as chain 8453 (an OP-stack chain), Circle's
 * USDC (FiatTokenV2_2 behind its proxy, initialized as Base's: "USD Coin", version "2", 6 decimals)
 * at Base's USDC address, the service's keys made fresh (never the node's public dev accounts: the
 * API refuses those off the local chain) and given ETH, and the escrow deployed by the documented
 * deploy command with those keys in its roles.
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  BASE_CHAIN_ID,
  type Deployment,
  deployCircleUsdc,
  readDeployment,
  USDC_ADDRESSES,
} from "@agent-marketplace/contracts";
import { deployToNetwork, type LocalNode, startHardhatNode } from "@agent-marketplace/contracts/local-chain";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PrivateKeyAccount,
  type PublicClient,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/** Base as the rehearsal's clients see it: chain 8453 at the node's URL. */
export function baseAt(rpcUrl: string) {
  return defineChain({
    id: BASE_CHAIN_ID,
    name: "Base (rehearsal)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export interface ServiceKeys {
  deployer: Hex;
  relayer: Hex;
  arbiter: Hex;
  /** Circle's roles on the token (owner, master minter, pauser, blacklister). */
  circle: Hex;
  /** The token proxy's admin (Circle's proxy refuses to forward its admin's calls). */
  circleAdmin: Hex;
  feeRecipient: Address;
}

export interface BaseChain {
  node: LocalNode;
  rpcUrl: string;
  usdc: Address;
  keys: ServiceKeys;
  deployment: Deployment;
  /** Where the deploy command wrote `8453.json` (the services' DEPLOYMENTS_DIR). */
  deploymentsDir: string;
  publicClient: PublicClient;
  testClient: ReturnType<typeof createTestClient>;
  /** Circle's master minter, for the rehearsal's agents' USDC. */
  minter: PrivateKeyAccount;
}

/** ETH each service key starts with (gas on a node whose base fee is Hardhat's). */
const SERVICE_ETH = parseEther("10");

export async function startBase(options: { port: number; dataDir: string; logFile: string }): Promise<BaseChain> {
  const node = await startHardhatNode({
    port: options.port,
    logFile: options.logFile,
    chainId: BASE_CHAIN_ID,
    chainType: "op",
  });
  const rpcUrl = node.rpcUrl;
  const chain = baseAt(rpcUrl);
  const transport = http(rpcUrl);
  const publicClient: PublicClient = createPublicClient({ chain, transport });
  const testClient = createTestClient({ chain, mode: "hardhat", transport });
  const keys: ServiceKeys = {
    deployer: generatePrivateKey(),
    relayer: generatePrivateKey(),
    arbiter: generatePrivateKey(),
    circle: generatePrivateKey(),
    circleAdmin: generatePrivateKey(),
    feeRecipient: privateKeyToAccount(generatePrivateKey()).address,
  };
  for (const key of [keys.deployer, keys.relayer, keys.arbiter, keys.circle]) {
    await testClient.setBalance({ address: privateKeyToAccount(key).address, value: SERVICE_ETH });
  }

  const circle = privateKeyToAccount(keys.circle);
  const usdc = USDC_ADDRESSES[BASE_CHAIN_ID] as Address;
  await deployCircleUsdc({
    at: usdc,
    testClient,
    publicClient,
    wallet: createWalletClient({ account: circle, chain, transport }),
    admin: privateKeyToAccount(keys.circleAdmin).address,
    owner: circle.address,
  });

  // The documented deploy command, with the roles of this deployment in a parameters file.
  const deploymentsDir = path.join(options.dataDir, "deployments");
  const parameters = path.join(options.dataDir, "escrow-parameters.json");
  const roles = {
    token: usdc,
    arbiter: privateKeyToAccount(keys.arbiter).address,
    operator: privateKeyToAccount(keys.relayer).address,
    feeRecipient: keys.feeRecipient,
    owner: privateKeyToAccount(keys.deployer).address,
  };
  writeFileSync(parameters, `${JSON.stringify({ AgentEscrow: roles }, null, 2)}\n`);
  const deploymentId = `rehearsal-${Date.now()}`;
  await deployToNetwork("base", {
    BASE_RPC_URL: rpcUrl,
    DEPLOYER_PRIVATE_KEY: keys.deployer,
    DEPLOY_PARAMETERS: parameters,
    DEPLOYMENTS_DIR: deploymentsDir,
    DEPLOYMENT_ID: deploymentId,
  });
  // Ignition's journal of a chain that ends with the rehearsal is of no use afterwards.
  rmSync(
    fileURLToPath(
      new URL(`../ignition/deployments/${deploymentId}`, import.meta.resolve("@agent-marketplace/contracts")),
    ),
    {
      recursive: true,
      force: true,
    },
  );
  const deployment = readDeployment(BASE_CHAIN_ID, deploymentsDir);
  if (!deployment) throw new Error(`the deploy command recorded no deployment in ${deploymentsDir}`);
  return { node, rpcUrl, usdc, keys, deployment, deploymentsDir, publicClient, testClient, minter: circle };
}
